// What the transformers.js providers share: the lazily imported package, the slice of its API they use,
// and where models are read from. It never installs the package and never enables the hub for local paths.

import { existsSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { importOptionalModule } from './optional-module.ts';

export const TRANSFORMERS_PROVIDER = 'transformers';
export const TRANSFORMERS_MODULE = '@huggingface/transformers';
/** onnxruntime-node's install step fetches GPU add-ons unless told to skip; offline installs need this. */
export const TRANSFORMERS_INSTALL_COMMAND = 'ONNXRUNTIME_NODE_INSTALL=skip npm install @huggingface/transformers';

export interface Tensor { dims: number[]; data: ArrayLike<number> }
interface TransformersEnv { allowLocalModels: boolean; allowRemoteModels: boolean; localModelPath: string }
type FeatureExtractor = (input: string[], options?: Record<string, unknown>) => Promise<Tensor>;
type PairTokenizer = (texts: string[], options?: Record<string, unknown>) => Record<string, unknown>;
type SequenceClassifier = (inputs: Record<string, unknown>) => Promise<{ logits: Tensor }>;

/** The part of @huggingface/transformers (v3) these providers call. */
export interface TransformersModule {
  env: TransformersEnv;
  pipeline(task: 'feature-extraction', model: string, options?: Record<string, unknown>): Promise<FeatureExtractor>;
  AutoTokenizer: { from_pretrained(model: string, options?: Record<string, unknown>): Promise<PairTokenizer> };
  AutoModelForSequenceClassification: { from_pretrained(model: string, options?: Record<string, unknown>): Promise<SequenceClassifier> };
}

/** `purpose` names the setting that needs the package; `specifier` exists so tests can name a missing one. */
export function loadTransformersModule(purpose: string, specifier = TRANSFORMERS_MODULE): Promise<TransformersModule> {
  return importOptionalModule<TransformersModule>({ specifier, purpose, installCommand: TRANSFORMERS_INSTALL_COMMAND });
}

/** Points transformers.js at a local directory (hub disabled) or leaves a hub id to the hub; returns the id to load. */
export function configureModelLocation(env: TransformersEnv, model: string): string {
  const local = resolve(model);
  if (existsSync(local) && statSync(local).isDirectory()) {
    env.allowLocalModels = true;
    env.allowRemoteModels = false;
    env.localModelPath = `${dirname(local)}/`;
    return basename(local);
  }
  return model;
}
