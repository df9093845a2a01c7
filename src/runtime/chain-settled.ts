// Waiting for a queue of background work kept as a promise chain, which may grow while it is waited for.

/** Resolves once the chain `current()` returns has ended with nothing added to it meanwhile. */
export async function chainSettled(current: () => Promise<void>): Promise<void> {
  let chain: Promise<void>;
  do {
    chain = current();
    await chain;
  } while (chain !== current());
}
