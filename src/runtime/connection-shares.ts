// The supervisor's side of spreading keep-alive connections (http/connection-balance.ts): from each api process's
// count of connections that carried an answer lately, how many each should shed. A process over its share by more
// than the tolerance sheds down to the mean; the cluster deals the reconnections out again, not always evenly,
// so the next count sheds again what is still over, and the spread settles within a few counts.

/** How often each api process counts its active connections and the supervisor decides on sheds. */
export const CONNECTION_COUNT_INTERVAL_MS = 1_000;
/** A process more than this share above the mean (and at least MIN_EXCESS connections) sheds down to the mean. */
export const SHARE_TOLERANCE = 0.25;
export const MIN_EXCESS = 2;

/** Per api process, the connections to shed (0 for most): `active[i]` is process i's count of active connections. */
export function connectionsToShed(active: readonly number[]): number[] {
  if (active.length < 2) return active.map(() => 0);
  const mean = active.reduce((sum, count) => sum + count, 0) / active.length;
  return active.map((count) => {
    const excess = count - mean;
    return excess > Math.max(MIN_EXCESS, mean * SHARE_TOLERANCE) ? Math.floor(excess) : 0;
  });
}
