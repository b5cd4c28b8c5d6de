import { Validations } from 'aws-cdk-lib';
import type { App, Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { ServingOptimizerStackProps } from './stacks/serving-optimizer-stack.js';
import { ServingOptimizerStack } from './stacks/serving-optimizer-stack.js';

export const SERVING_OPTIMIZER_STACK_NAME = 'ServingOptimizer';

export interface ServingOptimizerApp {
  readonly stack: ServingOptimizerStack;
}

/**
 * Adds the project's stacks to `app` and registers the cdk-nag AwsSolutions checks, so `cdk synth`
 * fails on any finding that has no written acknowledgment. cdk-nag v3 is a policy-validation plugin
 * (the v2 `Aspects.of(app).add(...)` form crashes at synth).
 */
export function buildServingOptimizerApp(
  app: App,
  env: Environment = {},
  stackProps: Omit<ServingOptimizerStackProps, 'env'> = {},
): ServingOptimizerApp {
  const stack = new ServingOptimizerStack(app, SERVING_OPTIMIZER_STACK_NAME, { ...stackProps, env });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { stack };
}
