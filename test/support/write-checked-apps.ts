/**
 * Synthesizes each configuration of `CHECKED_APPS` as `cdk synth` does, every check on, and writes
 * what each gave (its stack, or the error its synth threw) to the JSON file named by the first
 * argument. `checked-apps.ts` runs it in a child process (`node --import tsx`) on a cache miss.
 */
import { renameSync, writeFileSync } from 'node:fs';
import { loadOptimizerConfig } from '../../infra/optimizer-config.js';
import { buildServingOptimizerApp } from '../../infra/serving-optimizer-app.js';
import { REPO_ROOT } from '../../local/synthesis/synthesis-cache.js';
import { createTestApp, TEST_ENV } from '../infra/app.js';
import { type CheckedAppName, type CheckedAppResult, failedSynthResult } from './checked-apps.js';

const target = process.argv[2];
if (target === undefined || target === '') {
  throw new Error('write-checked-apps: got no output path; expected the JSON file to write as argument');
}

/** Builds and synthesizes one configuration with aws-cdk-lib's validation, cdk-nag and Guard on. */
function synthesize(
  build: (app: ReturnType<typeof createTestApp>) => ReturnType<typeof buildServingOptimizerApp>,
): CheckedAppResult {
  try {
    // The built-in CloudFormation validation too (createTestApp turns it off by default).
    const app = createTestApp({ builtinCloudFormationValidation: true });
    const { stack } = build(app);
    const deployed = app.synth().getStackByName(stack.stackName);
    return {
      stackName: deployed.stackName,
      environment: { account: deployed.environment.account, region: deployed.environment.region },
      template: deployed.template as Record<string, unknown>,
    };
  } catch (error) {
    return failedSynthResult(error);
  }
}

const apps: Record<CheckedAppName, CheckedAppResult> = {
  default: synthesize((app) => buildServingOptimizerApp(app, TEST_ENV)),
  environmentAgnostic: synthesize((app) => buildServingOptimizerApp(app)),
  configExample: synthesize((app) => {
    const config = loadOptimizerConfig('optimizer.config.example.json', REPO_ROOT);
    return buildServingOptimizerApp(app, TEST_ENV, config.stackProps, config.stackName);
  }),
};
// Written beside the target and renamed into place: a reader never sees a half-written file.
const partial = `${target}.${process.pid}.partial`;
writeFileSync(partial, JSON.stringify(apps));
renameSync(partial, target);
