import { z } from 'zod';
import { describeIssues } from './errors.js';
import { toInputIssues } from './validation.js';
import { ExecutionStatuses } from './run-api-contract.js';

/**
 * EventBridge's "Step Functions Execution Status Change" event, as the failed-run clean-up and the
 * run summary read it (and the rules in `infra/` match it). Step Functions developer guide,
 * "EventBridge for Step Functions execution status changes": `source` "aws.states", `detail-type`
 * "Step Functions Execution Status Change", and a `detail` with the DescribeExecution fields
 * `executionArn`, `stateMachineArn`, `name` (the execution name = the run id), `status` (RUNNING,
 * SUCCEEDED, FAILED, TIMED_OUT or ABORTED), and more neither step reads.
 *
 * The event says what the status was when it was sent. A FAILED, TIMED_OUT or ABORTED Standard
 * execution can be redriven within 14 days, and a redriven execution keeps its ARN and name
 * (Step Functions API reference, RedriveExecution): whoever acts on the event later reads the
 * status again (DescribeExecution).
 */

export const FAILURE_STATUSES = [
  ExecutionStatuses.failed,
  ExecutionStatuses.timedOut,
  ExecutionStatuses.aborted,
] as const;
export type FailureStatus = (typeof FAILURE_STATUSES)[number];

/**
 * An execution in one of these is under way: RUNNING, or PENDING_REDRIVE (a redrive asked for and
 * not started yet; ExecutionStatus, Step Functions API reference).
 */
export const LIVE_STATUSES: readonly string[] = [ExecutionStatuses.running, ExecutionStatuses.pendingRedrive];

export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';

/** The statuses of an execution that has ended, whose events the run-summary notifier reads. */
export const RUN_END_STATUSES = [
  ExecutionStatuses.succeeded,
  ExecutionStatuses.failed,
  ExecutionStatuses.timedOut,
  ExecutionStatuses.aborted,
] as const;
export type RunEndStatus = (typeof RUN_END_STATUSES)[number];

/** Only what the steps read; the rest of the event passes through unchecked. */
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

/** The event's fields the steps need, or a TypeError naming each bad field, what it got and expected. */
export function parseExecutionStatusChange(event: unknown): z.output<typeof executionStatusChangeSchema> {
  const parsed = executionStatusChangeSchema.safeParse(event, { reportInput: true });
  if (!parsed.success) {
    const issues = describeIssues(toInputIssues(parsed.error));
    throw new TypeError(
      `Not a Step Functions execution status change event: ${issues}. The EventBridge rule must ` +
        `match source "aws.states" and detail-type "${EXECUTION_STATUS_CHANGE}"`,
    );
  }
  return parsed.data;
}
