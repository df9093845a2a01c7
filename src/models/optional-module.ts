// Loads optional packages (such as transformers.js) on first use, once per process, and turns
// "not installed" into an error that says how to install. It never installs or downloads anything itself.

import { ModelProviderError } from './model-error.ts';

// One promise per specifier: a process can load only one onnxruntime version, so never import twice.
const loading = new Map<string, Promise<unknown>>();

function isModuleMissing(error: unknown, specifier: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && message.includes(specifier);
}

export interface OptionalModule {
  specifier: string;
  /** Which setting needs the package, e.g. "EMBEDDING_PROVIDER=transformers". */
  purpose: string;
  /** The shell command that installs it. */
  installCommand: string;
}

function loadFailure(error: unknown, wanted: OptionalModule): ModelProviderError {
  if (isModuleMissing(error, wanted.specifier)) {
    return new ModelProviderError('optional_module_missing', `${wanted.purpose} needs the optional package ${wanted.specifier}, which is not installed. Install it with: ${wanted.installCommand}`, { cause: error });
  }
  return new ModelProviderError('optional_module_missing', `${wanted.purpose}: loading ${wanted.specifier} failed (${(error as Error)?.message ?? error}). Reinstall it with: ${wanted.installCommand}`, { cause: error });
}

/** Imports the package once per process; a failed import is retried on the next call. */
export async function importOptionalModule<T>(wanted: OptionalModule): Promise<T> {
  const specifier = wanted.specifier;
  let pending = loading.get(specifier);
  if (!pending) {
    pending = import(specifier);
    loading.set(specifier, pending);
    // A failed import must not stay cached: the operator may install the package and retry.
    pending.catch(() => loading.delete(specifier));
  }
  try {
    return (await pending) as T;
  } catch (error) {
    throw loadFailure(error, wanted);
  }
}
