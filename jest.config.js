// ESM mode (middy and aws-local-stepfunctions are ESM-only): run through `npm test`, which passes
// --experimental-vm-modules. test/support/esbuild-transform.js strips each file's types on its own
// (tsconfig `isolatedModules`), without type-checking; `npm run typecheck` does that. jest 29 is
// pure JavaScript: jest 30 and @swc/jest pull per-platform native packages that an `npm ci` lock must
// list for every platform, which this project's registry cannot serve (docs/decisions.md); esbuild's
// are in the lock already, for the Lambda bundles.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Suites that measure real processes against each other and fail when other workers load the CPU:
 * the end-to-end run compares a compiled and an uncompiled model server (p50 5.6 ms vs 9.4 ms when
 * a second worker ran beside it; measured side by side, 5.95 vs 5.88 ms once in four runs beside
 * three). `npm test` (test/support/run-tests.js) runs them after the others, on one worker; the
 * other suites run on three. Only the comparison is here: the local path's other outcomes
 * (test/e2e/local-run-outcomes.test.ts) measure nothing against anything and run with the others.
 */
const SERIAL_SUITES = ['<rootDir>/test/e2e/local-run.test.ts'];

/** @type {import('jest').Config} */
const project = {
  testEnvironment: 'node',
  // Not in the OS temp dir, jest's default: `npm test` gives the suites a temp dir of their own and
  // removes it after the run (test/support/run-tests.js), and the transformed files must outlive it.
  cacheDirectory: join(dirname(fileURLToPath(import.meta.url)), 'node_modules', '.cache', 'jest'),
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': '<rootDir>/test/support/esbuild-transform.js' },
  // Synthesizes the workflows once per source change for the suites that run them
  // (test/support/synthesized-workflows.ts): no suite pays aws-cdk-lib's load and a synth for them.
  globalSetup: '<rootDir>/test/support/global-setup.js',
  // jest's runtime, with the named exports of node_modules' CommonJS files kept across suites.
  runtime: '<rootDir>/test/support/jest-runtime.js',
};

/** @type {import('jest').Config} */
export default {
  testTimeout: 30000,
  // The slowest suites first, also on a fresh clone, where jest has no timings of an earlier run.
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  // A worker whose heap is above this after a suite is replaced: ESM suites that load aws-cdk-lib
  // leave hundreds of MB behind, and one process reached 8 GB when every suite ran in it. 700 MB
  // rather than 300: a new worker compiles every module again, and the whole pass took 18 CPU-s
  // (6 %) more with 300; the largest process was 1.6 GB (decision 31).
  workerIdleMemoryLimit: '700MB',
  projects: [
    { ...project, displayName: 'parallel', testPathIgnorePatterns: ['/node_modules/', ...SERIAL_SUITES] },
    { ...project, displayName: 'serial', testMatch: SERIAL_SUITES },
  ],
};
