import { cachedSynthesizedWorkflows } from '../../local/synthesis/synthesis-cache.js';
import type { SynthesizedWorkflows } from '../../local/synthesis/synthesized-workflows.js';

export type { SynthesizedWorkflows };

/** The environment variable jest's global set-up (`test/support/global-setup.js`) sets to the cache file. */
export const SYNTHESIZED_WORKFLOWS_ENV = 'MSO_TEST_SYNTHESIZED_WORKFLOWS';

/**
 * The workflows as `synthesizeWorkflows()` returns them, from the synthesis cache local runs use
 * (`local/synthesis/synthesis-cache.ts`): the same template and definitions, without loading aws-cdk-lib and
 * synthesizing the stack again in every suite. jest's global set-up names the file for this run's
 * sources; without it (a run whose path pattern selected no suite that reads it, as the set-up
 * judged) the cache is looked up here. Each call parses a fresh copy, so a suite that changes what
 * it gets changes nothing for another.
 */
export function synthesizedWorkflows(): SynthesizedWorkflows {
  const path = process.env[SYNTHESIZED_WORKFLOWS_ENV];
  return cachedSynthesizedWorkflows(path === undefined || path === '' ? {} : { path }).workflows;
}
