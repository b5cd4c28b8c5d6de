import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { ExtractedStateMachine, TaskHandler, TaskResolver } from '../../../local/runner/index.js';
import { extractStateMachines } from '../../../local/runner/index.js';

/**
 * A fresh offline stack: explicit env, no bundling, and no built-in CloudFormation validation (about
 * 3 CPU-seconds per suite; these stacks are the runner's fixtures, never deployed: see
 * test/infra/app.ts).
 */
export function newStack(): Stack {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, builtinCloudFormationValidation: false });
  return new Stack(app, 'RunnerTest', { env: { account: '123456789012', region: 'us-east-1' } });
}

/** A Lambda function as the project's steps are: inline code, STEP_NAME in its environment. */
export function stepFunction(stack: Stack, stepName: string): lambda.Function {
  return new lambda.Function(stack, `Fn-${stepName}`, {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler=async()=>{}'),
    environment: { STEP_NAME: stepName },
  });
}

export function synthTemplate(stack: Stack): Record<string, any> {
  return Template.fromStack(stack).toJSON();
}

/** Synthesizes the stack and extracts its only state machine. */
export function synthStateMachine(
  stack: Stack,
  definition: sfn.IChainable,
  props: Partial<sfn.StateMachineProps> = {},
): ExtractedStateMachine {
  new sfn.StateMachine(stack, 'Machine', {
    definitionBody: sfn.DefinitionBody.fromChainable(definition),
    ...props,
  });
  const [stateMachine, ...others] = extractStateMachines(synthTemplate(stack));
  if (!stateMachine || others.length > 0) throw new Error('expected exactly one state machine');
  return stateMachine;
}

/** Handlers keyed by STEP_NAME for Lambda tasks and `service:action` for SDK integrations. */
export function resolverOf(handlers: Record<string, TaskHandler>): TaskResolver {
  return (info) => {
    const key = info.integration === 'lambda' ? (info.stepName ?? '') : `${info.service}:${info.action}`;
    const handler = handlers[key];
    if (!handler) throw new Error(`no local handler for ${key} (state ${info.stateName})`);
    return handler;
  };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
