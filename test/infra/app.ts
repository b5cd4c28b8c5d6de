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

/**
 * An App configured as `cdk synth` configures it (see createConfiguredApp), but for aws-cdk-lib's
 * built-in CloudFormation validation, off unless asked for: it costs about 3 CPU-seconds per suite
 * and 1.7 s per whole-stack synth. The app's suites (serving-optimizer-app*.test.ts,
 * optimizer-config.test.ts) turn it on, so every configuration `cdk synth` builds is still checked.
 */
export function createTestApp(options: TestAppOptions = {}): App {
  return createConfiguredApp({ builtinCloudFormationValidation: false, ...options });
}
