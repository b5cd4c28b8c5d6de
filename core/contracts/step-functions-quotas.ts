/**
 * Step Functions developer guide, "Step Functions service quotas" (hard quotas). A module of its
 * own, importing nothing, so that the input checks below the planner can read it too.
 */
export const STEP_FUNCTIONS_QUOTAS = {
  /**
   * "Maximum input or output size for a task, state, or execution": 256 KiB of data as a UTF-8
   * encoded string (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html).
   */
  maxPayloadBytes: 262_144,
  /** "Maximum execution history size": 25,000 events in one execution's history (same page). */
  maxHistoryEvents: 25_000,
} as const;
