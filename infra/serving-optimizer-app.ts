import { Validations } from 'aws-cdk-lib';
import type { App, Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { type ApiLogging, parseApiLogging } from './constructs/index.js';
import { GuardValidator } from './nag/index.js';
import type { ServingOptimizerStackProps } from './stacks/index.js';
import { ServingOptimizerStack } from './stacks/index.js';

export const SERVING_OPTIMIZER_STACK_NAME = 'ServingOptimizer';

/** CDK context key of the run API's logging mode: `npx cdk deploy -c apiLogging=use-account-role`. */
export const API_LOGGING_CONTEXT_KEY = 'apiLogging';

export interface ServingOptimizerApp {
  readonly stack: ServingOptimizerStack;
}

/**
 * Adds the project's stacks to `app` and registers the policy checks, so `cdk synth` fails on any
 * finding that has no written acknowledgment: cdk-nag's AwsSolutions rules and CloudFormation
 * Guard's Control Tower proactive controls (infra/nag/guard.ts). Both are CDK policy-validation
 * plugins (cdk-nag v3; its v2 `Aspects.of(app).add(...)` form crashes at synth).
 */
export function buildServingOptimizerApp(
  app: App,
  env: Environment = {},
  stackProps: Omit<ServingOptimizerStackProps, 'env'> = {},
  stackName: string = SERVING_OPTIMIZER_STACK_NAME,
): ServingOptimizerApp {
  const apiLogging = stackProps.apiLogging ?? apiLoggingFromContext(app);
  const stack = new ServingOptimizerStack(app, stackName, {
    ...stackProps,
    ...(apiLogging === undefined ? {} : { apiLogging }),
    env,
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new GuardValidator());
  return { stack };
}

/** The `apiLogging` context value (`-c apiLogging=…` or cdk.json), checked; undefined when unset. */
export function apiLoggingFromContext(app: App): ApiLogging | undefined {
  const value: unknown = app.node.tryGetContext(API_LOGGING_CONTEXT_KEY);
  return value === undefined ? undefined : parseApiLogging(value, `CDK context ${API_LOGGING_CONTEXT_KEY}`);
}
