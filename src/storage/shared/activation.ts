// What both generation repositories decide alike around an activation: the veto that allows any current
// generation, and the race that aborts a replacement whose version moved after its caller read it.

import type { ActivationVeto } from '../port.ts';

export const allowAnyActivation: ActivationVeto = () => true;

/**
 * A version's active generation changed between read and write (a source-generation race): thrown inside the
 * replacement's transaction to roll all of it back, and answered as null by replaceGenerations.
 */
export class GenerationMoved extends Error {
  constructor() {
    super('the active generation moved');
    this.name = 'GenerationMoved';
  }
}
