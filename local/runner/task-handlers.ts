import { randomUUID } from 'node:crypto';
import { rejectOnAbort, startDeadline } from './deadline.js';
import type { JsonObject, JsonValue } from './json.js';
import { isJsonObject, jsonByteLength, toJsonValue } from './json.js';
import {
  DataLimitExceededError,
  ExecutionStoppedError,
  lambdaFunctionError,
  serviceError,
} from './task-errors.js';
import type { PreparedTask, TaskInfo } from './task-info.js';
import type { TaskTokenBroker } from './task-tokens.js';
import { STEP_FUNCTIONS_QUOTAS } from '../../core/contracts/index.js';

/** What a local handler learns about the Task attempt it serves. */
export interface TaskContext {
  readonly executionName: string;
  readonly executionId: string;
  readonly stateMachineName: string;
  readonly stateName: string;
  /** `.waitForTaskToken` tasks: the token of this attempt (it is also in the input, where Parameters put it). */
  readonly taskToken?: string;
  /** Aborted when the attempt is abandoned: timeout, execution aborted or finished. */
  readonly signal: AbortSignal;
}

/**
 * Serves one Task state locally. For Lambda tasks it receives the effective `Payload` and returns
 * what the function returns (or throws what it throws); for service integrations it receives the
 * effective Parameters and returns the API response.
 */
export type TaskHandler = (input: JsonValue, context: TaskContext) => Promise<unknown>;

/** Chooses the local handler of each Task state; called once per Task state before the run starts. */
export type TaskResolver = (info: TaskInfo) => TaskHandler;

/** Run-wide facts the Task overrides share. */
export interface TaskRunScope {
  readonly executionName: string;
  readonly executionId: string;
  readonly stateMachineName: string;
  /** Aborted when the execution is aborted, times out or ends. */
  readonly signal: AbortSignal;
  readonly timeoutScale: number;
  readonly taskTokens?: TaskTokenBroker;
  /** Tokens `$$.Task.Token` handed out that no Task attempt has claimed yet. */
  readonly unclaimedTokens: Set<string>;
  readonly createTimeoutError: () => Error;
}

/** Step Functions quota: 256 KiB per state input/output (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html). */
const MAX_PAYLOAD_BYTES = STEP_FUNCTIONS_QUOTAS.maxPayloadBytes;

/** The engine's `taskResourceLocalHandlers` entry for one Task state. */
export function createTaskOverride(
  task: PreparedTask,
  handler: TaskHandler,
  scope: TaskRunScope,
): (input: JsonValue) => Promise<JsonValue> {
  const { stateName } = task.info;
  return async (input) => {
    if (scope.signal.aborted) throw new ExecutionStoppedError(stateName);
    // Claimed before any await: the engine evaluates Parameters ($$.Task.Token) and calls this
    // function in the same synchronous step, so the tokens in `input` are this attempt's.
    const tokens = task.info.waitForTaskToken ? claimTokens(input, scope, stateName) : [];
    const attempt = new AbortController();
    const signal = AbortSignal.any([scope.signal, attempt.signal]);
    const deadline = startDeadline({
      timeoutMs: toScaledMs(task.timeoutSeconds, scope.timeoutScale),
      heartbeatMs: toScaledMs(task.heartbeatSeconds, scope.timeoutScale),
      createError: scope.createTimeoutError,
    });
    const stopped = rejectOnAbort(scope.signal, () => new ExecutionStoppedError(stateName));
    const context: TaskContext = {
      executionName: scope.executionName,
      executionId: scope.executionId,
      stateMachineName: scope.stateMachineName,
      stateName,
      signal,
      ...(tokens[0] === undefined ? {} : { taskToken: tokens[0] }),
    };
    try {
      const work =
        tokens.length > 0
          ? waitForToken(task, handler, input, context, tokens, scope, deadline.heartbeat)
          : invoke(task, handler, input, context);
      const output = await Promise.race([work, deadline.expired, stopped.promise]);
      return checkSize(output, stateName);
    } finally {
      deadline.clear();
      stopped.dispose();
      attempt.abort(new ExecutionStoppedError(stateName));
    }
  };
}

async function invoke(
  task: PreparedTask,
  handler: TaskHandler,
  input: JsonValue,
  context: TaskContext,
): Promise<JsonValue> {
  const result = await callHandler(task, handler, input, context);
  return task.callStyle === 'lambda-invoke' ? lambdaInvokeResponse(result) : result;
}

/** The task ends when its token is settled; the handler's own result is ignored, its failure is not (as on AWS). */
async function waitForToken(
  task: PreparedTask,
  handler: TaskHandler,
  input: JsonValue,
  context: TaskContext,
  tokens: readonly string[],
  scope: TaskRunScope,
  onHeartbeat: () => void,
): Promise<JsonValue> {
  const broker = scope.taskTokens;
  if (!broker) throw new Error(`Task "${task.info.stateName}": no task token broker`);
  const completion = broker.waitForCompletion(tokens, { signal: context.signal, onHeartbeat });
  const invocation = callHandler(task, handler, input, context);
  return Promise.race([completion, invocation.then(() => completion)]);
}

async function callHandler(
  task: PreparedTask,
  handler: TaskHandler,
  input: JsonValue,
  context: TaskContext,
): Promise<JsonValue> {
  const isLambda = task.info.integration === 'lambda';
  const what = `The result of the handler of Task "${task.info.stateName}"`;
  let result: unknown;
  try {
    result = await handler(task.callStyle === 'lambda-invoke' ? invokePayload(input) : input, context);
  } catch (error) {
    throw isLambda ? lambdaFunctionError(error) : serviceError(error);
  }
  return toJsonValue(result, what);
}

/** Lambda Invoke sends `Payload` as the event; an invocation without one gets `{}`. */
function invokePayload(parameters: JsonValue): JsonValue {
  return isJsonObject(parameters) ? (parameters.Payload ?? {}) : {};
}

/**
 * The response of `arn:aws:states:::lambda:invoke` on AWS, so that `ResultSelector`
 * `{"Payload.$": "$.Payload"}` and `OutputPath "$.Payload"` work the same
 * (https://docs.aws.amazon.com/step-functions/latest/dg/connect-lambda.html).
 */
function lambdaInvokeResponse(payload: JsonValue): JsonObject {
  const requestId = randomUUID();
  const headers = {
    'Content-Type': 'application/json',
    'X-Amz-Executed-Version': '$LATEST',
    'x-amzn-RequestId': requestId,
  };
  return {
    ExecutedVersion: '$LATEST',
    Payload: payload,
    SdkHttpMetadata: {
      AllHttpHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
      HttpHeaders: headers,
      HttpStatusCode: 200,
    },
    SdkResponseMetadata: { RequestId: requestId },
    StatusCode: 200,
  };
}

function claimTokens(input: JsonValue, scope: TaskRunScope, stateName: string): string[] {
  const text = JSON.stringify(input);
  const claimed = [...scope.unclaimedTokens].filter((token) => text.includes(token));
  for (const token of claimed) scope.unclaimedTokens.delete(token);
  if (claimed.length === 0) {
    throw new Error(
      `Task "${stateName}": uses .waitForTaskToken but its effective Parameters carry no task token; expected $$.Task.Token in Parameters`,
    );
  }
  return claimed;
}

function checkSize(output: JsonValue, stateName: string): JsonValue {
  const size = jsonByteLength(output);
  if (size > MAX_PAYLOAD_BYTES) {
    throw new DataLimitExceededError(
      `Task "${stateName}" returned ${size} bytes, above the ${MAX_PAYLOAD_BYTES}-byte Step Functions payload limit; return an S3 pointer instead`,
    );
  }
  return output;
}

function toScaledMs(seconds: number | undefined, scale: number): number | undefined {
  return seconds === undefined ? undefined : seconds * 1000 * scale;
}
