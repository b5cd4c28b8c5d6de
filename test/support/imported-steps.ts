import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/**
 * Every step Lambda of a workflow's registry (OPTIMIZATION_STEPS, ASYNC_INFERENCE_STEPS) as an
 * imported function, keyed as the registry is: a test that builds a workflow construct without
 * the stack's bundling takes its steps from the registry, so a new step needs no line here.
 */
export function importedSteps<Key extends string>(
  scope: Construct,
  registry: Readonly<Record<Key, string>>,
): Record<Key, IFunction> {
  const entries = Object.entries<string>(registry).map(([key, name]) => [
    key,
    LambdaFunction.fromFunctionArn(scope, name, `arn:aws:lambda:us-east-1:123456789012:function:${name}`),
  ]);
  return Object.fromEntries(entries) as Record<Key, IFunction>;
}
