import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App } from 'aws-cdk-lib';
import { type ConfiguredAppOptions, createConfiguredApp } from '../../infra/synth-app.js';

/** Tests use an explicit environment: nothing may depend on the machine's AWS configuration. */
export const TEST_ENV = { account: '123456789012', region: 'us-east-1' } as const;

/** Entry files of the test Lambdas (the repository's lambdas/ belongs to the workflows). */
export const FIXTURE_LAMBDAS = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'lambdas');

/** A step that has an entry under FIXTURE_LAMBDAS. */
export const FIXTURE_STEP = 'probe-step';

export type TestAppOptions = ConfiguredAppOptions;

/** An App configured as `cdk synth` configures it (see createConfiguredApp). */
export function createTestApp(options: TestAppOptions = {}): App {
  return createConfiguredApp(options);
}
