import { z } from 'zod';
import { type CleanUpDeps, type CleanUpResult, cleanUpRun } from './clean-up.js';
import { leavesSomething } from './contracts/clean-up-account.js';
import { CleanUpIncompleteError } from './contracts/errors.js';
import { toInputIssues } from './contracts/validation.js';

/**
 * The failure clean-up: an EventBridge rule sends the "Step Functions Execution Status Change"
 * event of every optimization execution that ends FAILED, TIMED_OUT or ABORTED here, and the run's
 * resources are deleted by the same `cleanUpRun` the workflow's last state uses. An aborted or
 * timed-out execution never reaches that state, and a failed one may have failed in it: this is
 * the layer that still cleans up.
 *
 * The event (Step Functions developer guide, "EventBridge for Step Functions execution status
 * changes"): `source` "aws.states", `detail-type` "Step Functions Execution Status Change", and a
 * `detail` with the DescribeExecution fields `executionArn`, `stateMachineArn`, `name` (the
 * execution name = the run id), `status` (RUNNING, SUCCEEDED, FAILED, TIMED_OUT or ABORTED), and
 * more this step does not read.
 *
 * A FAILED Standard execution can be redriven (within 14 days): a redrive after this clean-up
 * finds the run's resources gone, and its deploy steps create them again.
 */

export const FAILURE_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;
export type FailureStatus = (typeof FAILURE_STATUSES)[number];

export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';

/** Only what this step reads; the rest of the event passes through unchecked. */
const executionStatusChangeSchema = z.object({
  source: z.literal('aws.states'),
  'detail-type': z.literal(EXECUTION_STATUS_CHANGE),
  detail: z.object({
    executionArn: z.string().min(1),
    stateMachineArn: z.string().min(1),
    // Execution names: 1–80 characters (StartExecution API reference).
    name: z.string().min(1).max(80),
    status: z.string().min(1),
  }),
});

export type ExecutionStatusChangeEvent = z.input<typeof executionStatusChangeSchema>;

export type FailedRunCleanUp =
  | {
      readonly outcome: 'ignored';
      readonly runId: string;
      readonly status: string;
    }
  | {
      readonly outcome: 'cleaned-up';
      readonly runId: string;
      readonly status: FailureStatus;
      readonly result: CleanUpResult;
    };

function isFailureStatus(status: string): status is FailureStatus {
  return (FAILURE_STATUSES as readonly string[]).includes(status);
}

/** The event's fields this step needs, or a TypeError naming each bad field, what it got and expected. */
export function parseExecutionStatusChange(event: unknown): z.output<typeof executionStatusChangeSchema> {
  const parsed = executionStatusChangeSchema.safeParse(event, { reportInput: true });
  if (!parsed.success) {
    const issues = toInputIssues(parsed.error)
      .map((issue) => `${issue.field}: got ${issue.given}, expected ${issue.expected}`)
      .join('; ');
    throw new TypeError(
      `Not a Step Functions execution status change event: ${issues}. The EventBridge rule must ` +
        `match source "aws.states" and detail-type "${EXECUTION_STATUS_CHANGE}"`,
    );
  }
  return parsed.data;
}

/**
 * Cleans up the run of an execution that ended FAILED, TIMED_OUT or ABORTED; any other status is
 * logged and ignored (the rule should not send it, but a broader rule must not delete a live run's
 * resources). Everything that can go goes in one pass; when something is still there (an endpoint
 * still Creating, a delete refused) it throws `CleanUpIncompleteError` with the account, after
 * trying everything, so that the asynchronous invocation's retries try again, the event reaches the
 * on-failure destination (a queue with an alarm) when they run out, and the janitor sweeps later.
 */
export async function cleanUpFailedRun(event: unknown, deps: CleanUpDeps): Promise<FailedRunCleanUp> {
  const { detail } = parseExecutionStatusChange(event);
  const runId = detail.name;
  if (!isFailureStatus(detail.status)) {
    deps.logger.info('Execution did not fail: nothing to clean up', {
      runId,
      status: detail.status,
      executionArn: detail.executionArn,
    });
    return { outcome: 'ignored', runId, status: detail.status };
  }
  deps.logger.info('Cleaning up the resources of a failed execution', {
    runId,
    status: detail.status,
    executionArn: detail.executionArn,
    stateMachineArn: detail.stateMachineArn,
  });
  const result = await cleanUpRun(
    {
      plan: { runId },
      error: { Error: detail.status, Cause: `Execution ${detail.executionArn} ended ${detail.status}` },
    },
    // No loop here to wait out an endpoint still Creating: the invocation's retries are the wait.
    { ...deps, busyWaitMs: 0 },
  );
  if (leavesSomething(result)) {
    throw new CleanUpIncompleteError(`Run ${runId} (${detail.status}): ${result.message}`, {
      runId,
      account: result,
    });
  }
  return { outcome: 'cleaned-up', runId, status: detail.status, result };
}
