// ESM mode (middy and aws-local-stepfunctions are ESM-only): run through `npm test`, which passes
// --experimental-vm-modules. ts-jest transpiles each file on its own (tsconfig `isolatedModules`),
// without type-checking; `npm run typecheck` does that. jest 29 and ts-jest are pure JavaScript:
// jest 30 and @swc/jest pull per-platform native packages that an `npm ci` lock must list for
// every platform, which this project's registry cannot serve (docs/decisions.md).
/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }] },
  testTimeout: 30000,
  globalSetup: '<rootDir>/test/support/global-setup.js',
  // One worker on the 2-core machines this runs on (jest's default, one fewer than the cores): two
  // workers took 213 s instead of 317 s, but the end-to-end test that compares a compiled and an
  // uncompiled model server then measured the other worker's load (p50 9.4 ms vs 5.6 ms) and failed.
};
