import { Aws, Duration, Fn, Stack } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { ErrorNames, QUOTA_RETRY, TRANSIENT_RETRY } from '../core/contracts/index.js';
import type { StepFunction, TaskParameters, TaskPayload } from './task-parameters.js';

/** Errors of the Lambda service itself (not of our code): always safe to retry. */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

/**
 * A Task over a step Lambda whose event is `Event`: `payload` is checked against it (`Given` is the
 * payload as written, inferred; see TaskParameters).
 */
export interface LambdaStepOptions<Event, Given> {
  readonly payload: TaskPayload<Event, Given>;
  readonly resultPath?: string;
  readonly resultSelector?: Record<string, unknown>;
  readonly timeout: Duration;
  /** Retry `TransientServiceError` (throttling after the SDK's own retries). @default true */
  readonly retryTransient?: boolean;
}

/**
 * A Task state that invokes a step Lambda and takes its return value as the result (not the
 * Invoke API's envelope). Retries name the transient errors: Lambda's own and ours. The payload is
 * type-checked against the event of `fn` (its step's, by the workflow's registry).
 */
export function lambdaStep<Event, const Given extends object>(
  scope: Construct,
  name: string,
  fn: StepFunction<Event>,
  options: LambdaStepOptions<Event, Given>,
): tasks.LambdaInvoke {
  const task = new tasks.LambdaInvoke(scope, name, {
    // A payload that is one path becomes InputPath: with a function ARN as Resource, Parameters
    // must be an object, and without Parameters the (input-pathed) state is the payload.
    ...(typeof options.payload === 'string'
      ? { lambdaFunction: fn, inputPath: options.payload }
      : stepInvocation<Event, Given>(fn, options.payload)),
    payloadResponseOnly: true,
    retryOnServiceExceptions: false,
    taskTimeout: sfn.Timeout.duration(options.timeout),
    ...(options.resultPath === undefined ? {} : { resultPath: options.resultPath }),
    ...(options.resultSelector === undefined ? {} : { resultSelector: options.resultSelector }),
  });
  retryLambdaServiceErrors(task);
  if (options.retryTransient !== false) retryTransientErrors(task);
  return task;
}

/**
 * The function and payload of a LambdaInvoke built by hand (a `.waitForTaskToken` one), the
 * Parameters type-checked against the event of `fn` as `lambdaStep`'s are.
 */
export function stepInvocation<Event, const Given extends object>(
  fn: StepFunction<Event>,
  parameters: Given & TaskParameters<Event, Given>,
): { readonly lambdaFunction: IFunction; readonly payload: sfn.TaskInput } {
  return { lambdaFunction: fn, payload: sfn.TaskInput.fromObject(parameters) };
}

/**
 * Every Retry of the project's workflows: full jitter, so that retries of parallel iterations
 * (Map items, workers) that failed together do not come back together and collide again. Step
 * Functions waits a random time between 0 and the computed interval ("JitterStrategy": "FULL",
 * developer guide, "Handling errors in Step Functions workflows", Retrier fields:
 * https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 */
export function addJitteredRetry(
  task: sfn.TaskStateBase,
  props: Omit<sfn.RetryProps, 'jitterStrategy'>,
): void {
  task.addRetry({ ...props, jitterStrategy: sfn.JitterType.FULL });
}

/**
 * `TransientServiceError`: throttling that outlasted the SDK's own retries (TRANSIENT_RETRY; the
 * async history model counts its attempts for every input).
 */
export function retryTransientErrors(task: tasks.LambdaInvoke): void {
  addJitteredRetry(task, {
    errors: [ErrorNames.transientService],
    interval: Duration.seconds(TRANSIENT_RETRY.intervalSeconds),
    backoffRate: TRANSIENT_RETRY.backoffRate,
    maxAttempts: TRANSIENT_RETRY.maxAttempts,
  });
}

/**
 * Retry of `QuotaExceededError` (SageMaker's `ResourceLimitExceeded`: the account's instances of
 * the type are all in use): wait for other endpoints, often this run's other candidates, to be
 * deleted, for up to 2 h 15 min (QUOTA_RETRY; its attempts come out of the history's retry
 * reserve, as every Retry's do). Planning refuses a candidate that could never fit the quota.
 */
export function retryWhileQuotaReached(task: tasks.LambdaInvoke): void {
  addJitteredRetry(task, {
    errors: [ErrorNames.quotaExceeded],
    interval: Duration.seconds(QUOTA_RETRY.intervalSeconds),
    backoffRate: QUOTA_RETRY.backoffRate,
    maxDelay: Duration.seconds(QUOTA_RETRY.maxDelaySeconds),
    maxAttempts: QUOTA_RETRY.maxAttempts,
  });
}

export interface StandardStateMachineProps {
  readonly comment: string;
  readonly definition: sfn.IChainable;
  readonly timeout: Duration;
  readonly logRetention?: RetentionDays;
  readonly stateMachineName?: string;
}

/**
 * The project's state machines: Standard, X-Ray, and every event logged without execution data
 * (it holds run inputs and, in the async workflow, task tokens: neither may reach a log).
 */
export function standardStateMachine(scope: Construct, props: StandardStateMachineProps): sfn.StateMachine {
  return new sfn.StateMachine(scope, 'StateMachine', {
    comment: props.comment,
    stateMachineType: sfn.StateMachineType.STANDARD,
    ...(props.stateMachineName === undefined ? {} : { stateMachineName: props.stateMachineName }),
    definitionBody: sfn.DefinitionBody.fromChainable(props.definition),
    timeout: props.timeout,
    tracingEnabled: true,
    logs: {
      destination: new LogGroup(scope, 'ExecutionLogs', {
        logGroupName: executionLogGroupName(scope),
        retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      }),
      level: sfn.LogLevel.ALL,
      includeExecutionData: false,
    },
  });
}

/** Where Step Functions' vended log groups go without growing the account's resource policy. */
const VENDED_STATES_LOG_PREFIX = '/aws/vendedlogs/states/';

/**
 * The name of a state machine's execution log group: `/aws/vendedlogs/states/<stack>-<path>-<id>`.
 * Under `/aws/vendedlogs/`, CloudWatch Logs does not add each group to the account's resource
 * policy of at most 5,120 characters, which Step Functions otherwise updates for every state machine
 * that logs, and which fails deploys in busy accounts (Step Functions developer guide, "Avoiding
 * CloudWatch Logs resource policy size restrictions",
 * https://docs.aws.amazon.com/step-functions/latest/dg/bp-cwl.html). The stack's name and the
 * construct's path keep two stacks, and two workflows of one stack, apart; the first part of the
 * stack's id (its UUID, `arn:…:stack/<name>/<uuid>`) keeps a stack created again under the same name
 * apart from the group its deleted predecessor retained. Step Functions takes the group's ARN of at
 * most 256 characters (API reference, CloudWatchLogsLogGroup); the async state machine's name
 * (`<stack>-AsyncInference`, at most 80 characters) keeps the stack's name, and so this one, well
 * below that.
 */
export function executionLogGroupName(scope: Construct): string {
  const stack = Stack.of(scope);
  const path = scope.node.scopes
    .slice(stack.node.scopes.length)
    .map((construct) => construct.node.id.replace(/[^A-Za-z0-9_.#-]/g, '-'))
    .join('-');
  const stackInstance = Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', Aws.STACK_ID))));
  return `${VENDED_STATES_LOG_PREFIX}${stack.stackName}-${path}-${stackInstance}`;
}

export function retryLambdaServiceErrors(task: tasks.LambdaInvoke): void {
  addJitteredRetry(task, {
    errors: LAMBDA_SERVICE_ERRORS,
    interval: Duration.seconds(2),
    backoffRate: 2,
    maxAttempts: 6,
  });
}

/** An endpoint still Creating cannot be deleted: retry for up to ~40 minutes. */
export function retryWhileBusy(task: tasks.LambdaInvoke): void {
  addJitteredRetry(task, {
    errors: [ErrorNames.resourceBusy],
    interval: Duration.seconds(60),
    backoffRate: 1,
    maxAttempts: 40,
  });
}
