import { readFileSync } from 'node:fs';
import type { SynthesizedWorkflows } from '../../local/synthesized-workflows.js';

/** The environment variable jest's global set-up (`test/global-setup.js`) sets to the cache file. */
export const SYNTHESIZED_WORKFLOWS_ENV = 'MSO_TEST_SYNTHESIZED_WORKFLOWS';

/**
 * The workflows as `synthesizeWorkflows()` returns them, read from the file jest's global set-up
 * wrote for this run's sources: the same template and definitions, without loading aws-cdk-lib and
 * synthesizing the stack again in every suite. Each call parses a fresh copy, so a suite that
 * changes what it gets changes nothing for another.
 */
export function synthesizedWorkflows(): SynthesizedWorkflows {
  const path = process.env[SYNTHESIZED_WORKFLOWS_ENV];
  if (path === undefined || path === '') {
    throw new Error(
      `synthesizedWorkflows: ${SYNTHESIZED_WORKFLOWS_ENV} is not set; expected the path jest's global set-up ` +
        'writes. Run the tests through jest.config.js (npm test, or jest with this config)',
    );
  }
  return JSON.parse(readFileSync(path, 'utf8')) as SynthesizedWorkflows;
}

export type { SynthesizedWorkflows };
