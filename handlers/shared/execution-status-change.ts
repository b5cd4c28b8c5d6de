import { z } from 'zod';
import { describeIssues } from '../contracts/errors.js';
import { toInputIssues } from '../contracts/validation.js';

/**
 * EventBridge's "Step Functions Execution Status Change" event, as the failed-run clean-up and the
 * run summary read it (and the rules in `infra/` match it). Step Functions developer guide,
 * "EventBridge for Step Functions execution status changes": `source` "aws.states", `detail-type`
 * "Step Functions Execution Status Change", and a `detail` with the DescribeExecution fields
 * `executionArn`, `stateMachineArn`, `name` (the execution name = the run id), `status` (RUNNING,
 * SUCCEEDED, FAILED, TIMED_OUT or ABORTED), and more neither step reads.
 */

export const FAILURE_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;
export type FailureStatus = (typeof FAILURE_STATUSES)[number];

export const EXECUTION_STATUS_CHANGE = 'Step Functions Execution Status Change';

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
