import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_FUNCTION_NAMES } from '../../core/contracts/functions.js';
import { REPO_ROOT } from '../support/module-graph.js';

/**
 * Each Lambda entry has a test in `test/lambdas/` that imports it and asserts what it sends (the
 * exact SDK inputs, e.g. entries.test.ts): the core function's test cannot see the entry's
 * wiring. The entries without one today are listed; the list may only shrink.
 */
const WITHOUT_ENTRY_TEST_TODAY: readonly string[] = [
  'check-async-endpoint',
  'clean-up-async-run',
  'clean-up-failed-run',
  'deploy-async-endpoint',
  'janitor',
  'load-batch',
  'ramp-scaling',
  'record-batch-results',
  'record-ramp',
  'run-events',
  'send-async-heartbeats',
  'summarize-async-run',
  'validate-async-run',
];

/** The text of every test file under `test/lambdas/`, sub-folders included. */
function lambdaTestSources(): string[] {
  const folder = join(REPO_ROOT, 'test', 'lambdas');
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.test.ts'))
    .map((path) => readFileSync(join(folder, path), 'utf8'));
}

describe('Lambda entry tests', () => {
  it('import every registered Lambda entry, but those listed today', () => {
    // Prepare
    const sources = lambdaTestSources();

    // Act
    const untested = PROJECT_FUNCTION_NAMES.filter(
      (name) => !sources.some((source) => source.includes(`lambdas/${name}.js'`)),
    ).sort();

    // Assert
    expect(untested).toEqual([...WITHOUT_ENTRY_TEST_TODAY].sort());
  });
});
