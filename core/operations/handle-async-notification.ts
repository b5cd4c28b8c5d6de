import type {
  AsyncInferenceFailureCause,
  AsyncInferenceResult,
  NotificationMetrics,
} from '../contracts/index.js';
import {
  ErrorNames,
  TransientServiceError,
  jsonBytes,
  runPrefixKey,
  s3Uri,
  redactedMessage,
  isRecord,
} from '../contracts/index.js';
import type { Logger, ObjectStore } from '../ports/index.js';
import { earlierInvocationReason } from './notification-match.js';
import {
  type CompletedNotification,
  type FailedNotification,
  type InferenceNotification,
  inferenceIdProblem,
  parseNotification,
  type ParsedNotification,
} from '../async/index.js';
import type { TaskCallOutcome, TaskResumer, TaskTokenRecord, TaskTokenStore } from '../async/index.js';

/**
 * The notification Lambda's core, subscribed to the endpoint's success and error topics. For each
 * SNS record: parse SageMaker's message, find the task token stored under its `InferenceId`,
 * resume the task (`SendTaskSuccess`, or `SendTaskFailure` with `InferenceFailedError`), then
 * delete the token, keeping a tombstone.
 *
 * Delivery is at least once (SNS, then Lambda's own retries of an asynchronous invocation), so:
 * - resume first, delete the token second: a crash in between leaves the token, the redelivery
 *   resumes again, Step Functions answers that the task is gone, and the token is deleted then;
 * - a redelivery after the token was deleted finds the tombstone: a duplicate, not an error;
 * - a notification of an earlier invocation under the same id (a previous attempt, or a previous
 *   run of the same name: `earlierInvocationReason`) is a duplicate too, and the task keeps waiting;
 * - no record at all: an unknown id (another producer on the topic, or a record past its TTL);
 * - a malformed message is logged and counted, never thrown: throwing would only make Lambda
 *   deliver the same poison message again. When its `inferenceId` is still readable, the task is
 *   failed at once instead of left to time out;
 * - an `inferenceId` SageMaker never assigns (over 64 characters, or not its pattern) names no
 *   invocation of ours: counted as malformed before any store call, so a huge id is never sent
 *   to DynamoDB (whose keys hold at most 2,048 bytes);
 * - a request the store refuses as invalid (`RequestRefusedError`: DynamoDB's ValidationException,
 *   which it marks not to retry) fails that record only: logged and counted, never thrown, since
 *   every redelivery would be refused alike and hold back the records beside it;
 * - a failure to reach DynamoDB or Step Functions (`TransientServiceError`), or any error not
 *   known to be final, is thrown after every record was tried, so Lambda retries the delivery (and
 *   sends it to the failure destination if it keeps failing). Errors of the deployment (a denied
 *   call, a missing table) are among these: they fail every record alike, and the failure
 *   destination keeps the notifications for a replay once the deployment is fixed.
 *
 * No token is ever logged: log lines carry the inference id, run id and item index only.
 */

export interface SnsNotificationMessage {
  /** SNS `MessageId`, for log correlation. */
  readonly messageId: string;
  /** SNS `Message`: SageMaker's JSON document; anything else (or nothing) counts as malformed. */
  readonly message: unknown;
}

/**
 * The SNS event's records as messages, whatever the event's shape: a record without `Sns` or
 * `Message` becomes a malformed message (counted, never thrown), so one unreadable record cannot
 * fail the batch; an event without `Records` is one malformed message.
 */
export function readSnsRecords(event: unknown): SnsNotificationMessage[] {
  const records = isRecord(event) ? event.Records : undefined;
  if (!Array.isArray(records)) return [{ messageId: '(event without Records)', message: undefined }];
  return records.map((record: unknown, index) => {
    const sns = isRecord(record) ? record.Sns : undefined;
    const messageId =
      isRecord(sns) && typeof sns.MessageId === 'string' ? sns.MessageId : `(record ${index})`;
    return { messageId, message: isRecord(sns) ? sns.Message : undefined };
  });
}

export type NotificationOutcome = keyof typeof NotificationMetrics;
export type NotificationSummary = Readonly<Record<NotificationOutcome, number>>;

export interface HandleAsyncNotificationDeps {
  readonly store: TaskTokenStore;
  readonly resumer: TaskResumer;
  readonly logger: Logger;
  readonly nowEpochMs: () => number;
  /** Where a reason too long for the state is kept whole (the artifacts bucket, under the run). */
  readonly fullReasons?: { readonly store: ObjectStore; readonly artifactsBucket: string };
}

/** SendTaskFailure's `cause` is capped at 32,768 characters (Step Functions API reference). */
const MAX_FAILURE_REASON_LENGTH = 8_000;

/**
 * What of a failure reason travels in the workflow's state, in UTF-8 bytes as the state carries it
 * (escaped twice: the reason is inside the `Cause` string). A batch's 40 results share one state
 * of at most 256 KB (Step Functions quotas, States.DataLimitExceeded cannot be caught): 40 reasons
 * of 8,000 characters would not fit, 40 of 1 KB leave room for the URIs beside them.
 */
export const STATE_FAILURE_REASON_BYTES = 1_024;

/** Where the notification Lambda keeps a failure reason too long for the state. */
export function failureReasonUri(artifactsBucket: string, runId: string, inferenceId: string): string {
  return s3Uri(artifactsBucket, `${runPrefixKey(runId)}async/failure-reasons/${inferenceId}.txt`);
}

/** Bytes a reason takes in the state: a JSON string inside the `Cause` JSON string. */
function stateBytes(text: string): number {
  return jsonBytes(JSON.stringify(text));
}

/** The longest prefix of `text` (plus "…") that fits `maxBytes` in the state. */
export function truncateForState(text: string, maxBytes: number): string {
  if (stateBytes(text) <= maxBytes) return text;
  let low = 0;
  let high = text.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (stateBytes(`${text.slice(0, middle)}…`) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  // Never split a surrogate pair: half a character is not valid UTF-8.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(low - 1)) ? low - 1 : low;
  return `${text.slice(0, end)}…`;
}

export async function handleAsyncNotifications(
  messages: readonly SnsNotificationMessage[],
  deps: HandleAsyncNotificationDeps,
): Promise<NotificationSummary> {
  const summary: Record<NotificationOutcome, number> = {
    resumedSuccess: 0,
    resumedFailure: 0,
    duplicate: 0,
    unknownInferenceId: 0,
    malformed: 0,
    taskGone: 0,
    refused: 0,
    retryLater: 0,
  };
  for (const message of messages) {
    summary[await handleOne(message, deps)] += 1;
  }
  return summary;
}

/** Throws when some records must be delivered again (the entry calls it after emitting metrics). */
export function throwIfRetryNeeded(summary: NotificationSummary): void {
  if (summary.retryLater === 0) return;
  const total = Object.values(summary).reduce((sum, count) => sum + count, 0);
  throw new TransientServiceError(
    `${summary.retryLater} of ${total} notification(s) could not be processed (DynamoDB or Step Functions unavailable), expected all processed; failing so that Lambda delivers them again`,
    { ...summary },
  );
}

async function handleOne(
  sns: SnsNotificationMessage,
  deps: HandleAsyncNotificationDeps,
): Promise<NotificationOutcome> {
  const parsed: ParsedNotification =
    typeof sns.message === 'string'
      ? parseNotification(sns.message)
      : {
          kind: 'malformed',
          problem: `the SNS record has no Message string (got ${describeKind(sns.message)})`,
        };
  const inferenceId = parsed.kind === 'malformed' ? parsed.inferenceId : parsed.notification.inferenceId;
  if (inferenceId === undefined) {
    const problem = parsed.kind === 'malformed' ? parsed.problem : 'no inferenceId';
    deps.logger.warn('Malformed notification ignored', { messageId: sns.messageId, problem });
    return 'malformed';
  }
  const idProblem = inferenceIdProblem(inferenceId);
  if (idProblem !== undefined) {
    deps.logger.warn('Notification of an id SageMaker never assigns ignored', {
      messageId: sns.messageId,
      problem: idProblem,
    });
    return 'malformed';
  }
  const where: Record<string, unknown> = { messageId: sns.messageId, inferenceId };

  let taskToken: string | undefined;
  try {
    const record = await deps.store.get(inferenceId);
    if (record === undefined) {
      deps.logger.warn('Notification for an unknown inference id', {
        ...where,
        ...(parsed.kind === 'malformed' ? { problem: parsed.problem } : {}),
      });
      return parsed.kind === 'malformed' ? 'malformed' : 'unknownInferenceId';
    }
    Object.assign(where, { runId: record.runId, itemIndex: record.itemIndex });
    if (record.taskToken === undefined) {
      deps.logger.info('Duplicate notification: the task was already resumed', where);
      return 'duplicate';
    }
    taskToken = record.taskToken;
    const earlier =
      parsed.kind === 'malformed' ? undefined : earlierInvocationReason(parsed.notification, record);
    if (earlier !== undefined) {
      // Left waiting: its own invocation's notification (or the heartbeat sender) resumes it.
      deps.logger.warn('Notification of an earlier invocation under this id ignored', {
        ...where,
        problem: earlier,
      });
      return 'duplicate';
    }

    const nowMs = deps.nowEpochMs();
    const call = await boundForState(
      parsed.kind === 'malformed'
        ? failureCall(malformedAsFailure(inferenceId, parsed.problem), record, nowMs)
        : resumeCall(parsed.notification, record, nowMs),
      record,
      deps,
    );
    const outcome = await send(deps.resumer, taskToken, call);
    // Conditional on the token: a newer attempt's token, stored meanwhile, is left in place.
    await deps.store.consumeToken(inferenceId, taskToken, nowMs);
    return logOutcome(outcome, call, parsed.kind === 'malformed' ? parsed.problem : undefined, where, deps);
  } catch (error) {
    const failure = {
      ...where,
      error: error instanceof Error ? error.name : 'Error',
      // Not `message`: Powertools reserves that key.
      // The token this record holds, or any token-shaped text (the store's own errors may carry one).
      errorMessage: redactedMessage(error, [taskToken]),
    };
    if (error instanceof Error && error.name === ErrorNames.requestRefused) {
      deps.logger.error('Notification refused by the token store; this record alone fails', failure);
      return 'refused';
    }
    deps.logger.error('Notification not processed; it will be delivered again', failure);
    return 'retryLater';
  }
}

type ResumeCall =
  | { readonly kind: 'success'; readonly output: AsyncInferenceResult }
  | { readonly kind: 'failure'; readonly cause: AsyncInferenceFailureCause };

function resumeCall(notification: InferenceNotification, record: TaskTokenRecord, nowMs: number): ResumeCall {
  return notification.outcome === 'completed'
    ? successCall(notification, record, nowMs)
    : failureCall(notification, record, nowMs);
}

function successCall(
  notification: CompletedNotification,
  record: TaskTokenRecord,
  nowMs: number,
): ResumeCall {
  return {
    kind: 'success',
    output: {
      inferenceId: notification.inferenceId,
      status: 'Completed',
      inputLocation: record.inputLocation,
      outputLocation: notification.outputLocation,
      timeInSageMakerMs: timeInSageMaker(notification),
      ...timesOf(notification, record, nowMs),
    },
  };
}

function timesOf(
  notification: InferenceNotification,
  record: TaskTokenRecord,
  nowMs: number,
): { totalMs: number; invokedAtEpochMs: number; finishedAtEpochMs: number } {
  return {
    totalMs: Math.max(0, nowMs - record.storedAtEpochMs),
    invokedAtEpochMs: record.storedAtEpochMs,
    finishedAtEpochMs: notification.finishedAtEpochMs ?? nowMs,
  };
}

function failureCall(notification: FailedNotification, record: TaskTokenRecord, nowMs: number): ResumeCall {
  return {
    kind: 'failure',
    cause: {
      inferenceId: notification.inferenceId,
      invocationStatus: notification.invocationStatus,
      failureReason: truncate(notification.failureReason, MAX_FAILURE_REASON_LENGTH),
      failureLocation: notification.failureLocation ?? null,
      inputLocation: record.inputLocation,
      timeInSageMakerMs: timeInSageMaker(notification),
      ...timesOf(notification, record, nowMs),
    },
  };
}

/**
 * A failure reason longer than the state allows is kept whole in S3 (a retried delivery writes the
 * same object again) and travels truncated, with its URI; "Record batch results" puts the whole
 * text back in the batch's results object.
 */
async function boundForState(
  call: ResumeCall,
  record: TaskTokenRecord,
  deps: HandleAsyncNotificationDeps,
): Promise<ResumeCall> {
  if (call.kind === 'success') return call;
  const { failureReason } = call.cause;
  const truncated = truncateForState(failureReason, STATE_FAILURE_REASON_BYTES);
  if (truncated === failureReason) return call;
  if (deps.fullReasons === undefined)
    return { kind: 'failure', cause: { ...call.cause, failureReason: truncated } };
  const uri = failureReasonUri(deps.fullReasons.artifactsBucket, record.runId, call.cause.inferenceId);
  await deps.fullReasons.store.putBytes(
    uri,
    new TextEncoder().encode(failureReason),
    'text/plain; charset=utf-8',
  );
  return { kind: 'failure', cause: { ...call.cause, failureReason: truncated, failureReasonUri: uri } };
}

function malformedAsFailure(inferenceId: string, problem: string): FailedNotification {
  return {
    inferenceId,
    outcome: 'failed',
    invocationStatus: 'Malformed',
    failureReason: `The SageMaker notification could not be read: ${problem}`,
  };
}

function send(resumer: TaskResumer, taskToken: string, call: ResumeCall): Promise<TaskCallOutcome> {
  if (call.kind === 'success') return resumer.sendTaskSuccess(taskToken, { ...call.output });
  return resumer.sendTaskFailure(taskToken, ErrorNames.inferenceFailed, JSON.stringify(call.cause));
}

function logOutcome(
  outcome: TaskCallOutcome,
  call: ResumeCall,
  malformedProblem: string | undefined,
  where: Record<string, unknown>,
  deps: HandleAsyncNotificationDeps,
): NotificationOutcome {
  if (outcome.status === 'task-gone') {
    // The wait timed out, the execution ended, or a concurrent delivery resumed it first.
    deps.logger.warn('Task no longer waiting; token deleted', { ...where, reason: outcome.reason });
    return 'taskGone';
  }
  if (malformedProblem !== undefined) {
    deps.logger.warn('Malformed notification: task failed', { ...where, problem: malformedProblem });
    return 'malformed';
  }
  if (call.kind === 'success') {
    deps.logger.info('Task resumed with the inference result', {
      ...where,
      outputLocation: call.output.outputLocation,
      timeInSageMakerMs: call.output.timeInSageMakerMs,
      totalMs: call.output.totalMs,
    });
    return 'resumedSuccess';
  }
  deps.logger.info('Task failed with the inference failure', {
    ...where,
    invocationStatus: call.cause.invocationStatus,
    failureReason: call.cause.failureReason,
  });
  return 'resumedFailure';
}

function timeInSageMaker(notification: InferenceNotification): number | null {
  const { receivedAtEpochMs, finishedAtEpochMs } = notification;
  if (receivedAtEpochMs === undefined || finishedAtEpochMs === undefined) return null;
  return Math.max(0, finishedAtEpochMs - receivedAtEpochMs);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function describeKind(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
