import { ErrorNames, redactedMessage } from '../contracts/index.js';
import {
  EndpointStatuses,
  type EndpointDescription,
  type Logger,
  type ModelHost,
  type ObjectStore,
} from '../ports/index.js';
import { findWrittenResult, type WrittenResult } from './lost-notification.js';
import type { NewTaskTokenRecord, TaskResumer, TaskTokenStore } from '../async/index.js';

/**
 * The heartbeat sender, run on a schedule (every few minutes). SageMaker sends no heartbeat, so
 * without this the only bound on a wait would be its timeout (hours). For every task still waiting:
 * - its endpoint is alive → `SendTaskHeartbeat`, so the wait's `HeartbeatSeconds` does not expire;
 * - its endpoint is gone, failed or being deleted → `SendTaskFailure` with `EndpointFailedError`
 *   at once: no notification will ever come, and the run moves on within minutes;
 * - Step Functions says the task is over → the token is deleted (a tombstone stays).
 * Before that, a task that has waited longer than `lostNotificationAfterMs` is looked up where
 * SageMaker writes its result (`findWrittenResult`): an output resumes it with `SendTaskSuccess`,
 * a failure object fails it with `InferenceFailedError`, as the lost notification would have.
 * A notification lost before SageMaker wrote anything ends the wait after `HeartbeatSeconds` only
 * if this sender also stopped; otherwise the wait's timeout is the backstop. No token is ever logged.
 */

export interface SendAsyncHeartbeatsDeps {
  readonly store: TaskTokenStore;
  readonly resumer: TaskResumer;
  readonly host: ModelHost;
  /** Where SageMaker writes results: looked at for tasks whose notification is late. */
  readonly objects: ObjectStore;
  /** A task waiting longer than this has its output looked for (`LOST_NOTIFICATION_AFTER_MS`). */
  readonly lostNotificationAfterMs: number;
  readonly logger: Logger;
  readonly nowEpochMs: () => number;
}

export interface HeartbeatSummary {
  readonly heartbeats: number;
  readonly failedEndpointGone: number;
  readonly taskGone: number;
  /** Tasks resumed from the output SageMaker wrote, their notification lost. */
  readonly resumedFromOutput: number;
  /** Tasks failed from the failure object SageMaker wrote, their notification lost. */
  readonly failedFromFailureObject: number;
  readonly errors: number;
}

/**
 * Statuses of an endpoint that will process no more requests (DescribeEndpoint `EndpointStatus`).
 * Not `UpdateRollbackFailed`: such an endpoint "is in service with a mix of the old and new
 * endpoint configurations" (SageMaker API reference), so its queued requests still complete.
 */
const DEAD_STATUSES: readonly string[] = [
  EndpointStatuses.failed,
  EndpointStatuses.deleting,
  EndpointStatuses.outOfService,
];

export async function sendAsyncHeartbeats(deps: SendAsyncHeartbeatsDeps): Promise<HeartbeatSummary> {
  const endpoints = new Map<string, Promise<EndpointDescription | undefined>>();
  const describe = (name: string): Promise<EndpointDescription | undefined> => {
    let described = endpoints.get(name);
    if (described === undefined) {
      described = deps.host.describeEndpoint(name);
      endpoints.set(name, described);
    }
    return described;
  };
  const summary = {
    heartbeats: 0,
    failedEndpointGone: 0,
    taskGone: 0,
    resumedFromOutput: 0,
    failedFromFailureObject: 0,
    errors: 0,
  };

  for await (const record of deps.store.listWaiting()) {
    const where = { inferenceId: record.inferenceId, runId: record.runId, itemIndex: record.itemIndex };
    try {
      const written = await lookForResult(record, deps, where);
      if (written !== undefined) {
        summary[await resumeFromResult(record, written, deps, where)] += 1;
        continue;
      }
      const endpoint = record.endpointName === undefined ? undefined : await describe(record.endpointName);
      const dead =
        record.endpointName !== undefined &&
        (endpoint === undefined || DEAD_STATUSES.includes(endpoint.status));
      const outcome = dead
        ? await deps.resumer.sendTaskFailure(
            record.taskToken,
            ErrorNames.endpointFailed,
            `Endpoint ${record.endpointName ?? ''} is ${endpoint?.status ?? 'gone'}${
              endpoint?.failureReason === undefined ? '' : `: ${endpoint.failureReason}`
            }; no result will arrive for inference ${record.inferenceId}`,
          )
        : await deps.resumer.sendTaskHeartbeat(record.taskToken);
      if (outcome.status === 'task-gone') {
        await deps.store.consumeToken(record.inferenceId, record.taskToken, deps.nowEpochMs());
        summary.taskGone += 1;
      } else if (dead) {
        await deps.store.consumeToken(record.inferenceId, record.taskToken, deps.nowEpochMs());
        deps.logger.warn('Waiting task failed: its endpoint is gone', {
          ...where,
          endpointName: record.endpointName,
          status: endpoint?.status ?? 'deleted',
        });
        summary.failedEndpointGone += 1;
      } else {
        summary.heartbeats += 1;
      }
    } catch (error) {
      summary.errors += 1;
      deps.logger.error('Heartbeat not sent; the next round retries', {
        ...where,
        error: error instanceof Error ? error.name : 'Error',
        errorMessage: redactedMessage(error, [record.taskToken]),
      });
    }
  }
  deps.logger.info('Heartbeats sent', summary);
  return summary;
}

/**
 * The result SageMaker wrote for a late task, or `undefined`. A failed look-up (S3 unavailable, a
 * reused endpoint writing where this Lambda may not read) only skips it: the heartbeat still goes.
 */
async function lookForResult(
  record: NewTaskTokenRecord,
  deps: SendAsyncHeartbeatsDeps,
  where: Record<string, unknown>,
): Promise<WrittenResult | undefined> {
  try {
    return await findWrittenResult(record, deps.objects, deps.nowEpochMs(), deps.lostNotificationAfterMs);
  } catch (error) {
    deps.logger.warn('Could not look for the result of a late task; heartbeating it instead', {
      ...where,
      outputLocation: record.outputLocation,
      error: error instanceof Error ? error.name : 'Error',
      errorMessage: redactedMessage(error, [record.taskToken]),
    });
    return undefined;
  }
}

/** Resumes the task as its notification would have, then consumes the token (a tombstone stays). */
async function resumeFromResult(
  record: NewTaskTokenRecord,
  written: WrittenResult,
  deps: SendAsyncHeartbeatsDeps,
  where: Record<string, unknown>,
): Promise<'resumedFromOutput' | 'failedFromFailureObject' | 'taskGone'> {
  const outcome =
    written.kind === 'success'
      ? await deps.resumer.sendTaskSuccess(record.taskToken, { ...written.output })
      : await deps.resumer.sendTaskFailure(
          record.taskToken,
          ErrorNames.inferenceFailed,
          JSON.stringify(written.cause),
        );
  await deps.store.consumeToken(record.inferenceId, record.taskToken, deps.nowEpochMs());
  if (outcome.status === 'task-gone') return 'taskGone';
  if (written.kind === 'success') {
    deps.logger.warn('Notification lost: task resumed from the output SageMaker wrote', {
      ...where,
      outputLocation: written.output.outputLocation,
      totalMs: written.output.totalMs,
    });
    return 'resumedFromOutput';
  }
  deps.logger.warn('Notification lost: task failed from the failure object SageMaker wrote', {
    ...where,
    failureLocation: written.cause.failureLocation,
  });
  return 'failedFromFailureObject';
}
