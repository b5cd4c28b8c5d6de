import { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import type { Construct } from 'constructs';
import { ErrorNames } from '../handlers/contracts/errors.js';
import { QUOTA_RETRY, TRANSIENT_RETRY } from '../handlers/contracts/execution-limits.js';

/** Errors of the Lambda service itself (not of our code): always safe to retry. */
export const LAMBDA_SERVICE_ERRORS = [
  'Lambda.ServiceException',
  'Lambda.AWSLambdaException',
  'Lambda.SdkClientException',
  'Lambda.TooManyRequestsException',
];

export interface LambdaStepOptions {
  readonly payload: Record<string, unknown> | string;
  readonly resultPath?: string;
  readonly resultSelector?: Record<string, unknown>;
  readonly timeout: Duration;
  /** Retry `TransientServiceError` (throttling after the SDK's own retries). @default true */
  readonly retryTransient?: boolean;
}

/**
 * A Task state that invokes a step Lambda and takes its return value as the result (not the
 * Invoke API's envelope). Retries name the transient errors: Lambda's own and ours.
 */
export function lambdaStep(
  scope: Construct,
  name: string,
  fn: IFunction,
  options: LambdaStepOptions,
): tasks.LambdaInvoke {
  const task = new tasks.LambdaInvoke(scope, name, {
    lambdaFunction: fn,
    // A payload that is one path becomes InputPath: with a function ARN as Resource, Parameters
    // must be an object, and without Parameters the (input-pathed) state is the payload.
    ...(typeof options.payload === 'string'
      ? { inputPath: options.payload }
      : { payload: sfn.TaskInput.fromObject(options.payload) }),
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
        retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      }),
      level: sfn.LogLevel.ALL,
      includeExecutionData: false,
    },
  });
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
