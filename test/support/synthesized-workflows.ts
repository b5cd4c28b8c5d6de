import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SynthesizedWorkflows } from '../../local/synthesized-workflows.js';

export type { SynthesizedWorkflows };

/** The environment variable jest's global set-up (`test/support/global-setup.js`) sets to the cache file. */
export const SYNTHESIZED_WORKFLOWS_ENV = 'MSO_TEST_SYNTHESIZED_WORKFLOWS';

const WRITER = join(dirname(fileURLToPath(import.meta.url)), 'write-synthesized-workflows.ts');

/**
 * The workflows as `synthesizeWorkflows()` returns them, read from the file jest's global set-up
 * names for this run's sources: the same template and definitions, without loading aws-cdk-lib and
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
  // The set-up synthesizes only when the run's path pattern selects a suite that reads the file.
  if (!existsSync(path)) writeSynthesis(path);
  return JSON.parse(readFileSync(path, 'utf8')) as SynthesizedWorkflows;
}

function writeSynthesis(path: string): void {
  const child = spawnSync(process.execPath, ['--import', 'tsx', WRITER, path], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (child.status !== 0) {
    throw new Error(
      `synthesizedWorkflows: synthesizing the workflows failed (${WRITER} exited ${child.status ?? child.signal}); ` +
        'expected exit 0. Its error is printed above; `npm run synth` shows the same error',
    );
  }
}
