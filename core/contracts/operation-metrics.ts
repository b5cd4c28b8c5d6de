/**
 * The metric names the operations' entries emit (namespace and dimensions of every step metric,
 * lambdas/step.ts) and the stack's dashboard and alarms read: one name on both sides.
 */

/**
 * The async notification handler's outcomes, one per SNS record
 * (core/operations/handle-async-notification.ts); each is a metric its entry emits (count per
 * invocation), which the operations dashboard shows.
 */
export const NotificationMetrics = {
  resumedSuccess: 'AsyncInferenceResumedSuccess',
  resumedFailure: 'AsyncInferenceResumedFailure',
  duplicate: 'AsyncNotificationDuplicate',
  unknownInferenceId: 'AsyncNotificationUnknownInferenceId',
  malformed: 'AsyncNotificationMalformed',
  taskGone: 'AsyncNotificationTaskGone',
  /** The store refused the record's request as invalid: that record alone fails, not retried. */
  refused: 'AsyncNotificationRefused',
  retryLater: 'AsyncNotificationRetryLater',
} as const;

/**
 * The janitor's metric (namespace and dimensions of every step metric, lambdas/step.ts), which the
 * stack alarms on: stale resources a sweep could not delete or decide on, 0 when there were none; a
 * sweep that fails before it can decide on anything (its listing throttled) counts 1.
 */
export const JanitorMetrics = { notDeleted: 'StaleResourcesNotDeleted' } as const;

/**
 * The Model Registry trigger's outcomes (core/operations/start-approved-model-run.ts), one metric
 * each, counted by its entry: the dashboard shows them.
 */
export const ApprovedModelRunMetrics = {
  started: 'ApprovedModelRunStarted',
  'already-started': 'ApprovedModelRunAlreadyStarted',
  ignored: 'ApprovedModelRunIgnored',
} as const;
