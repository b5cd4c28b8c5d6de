import { MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  handleAsyncNotifications,
  type NotificationOutcome,
  type NotificationSummary,
  readSnsRecords,
  throwIfRetryNeeded,
} from '../core/operations/handle-async-notification.js';
import { NotificationMetrics } from '../core/contracts/index.js';
import { artifactsBucket, s3Store, taskResumer, taskTokenStore } from './wiring.js';
import { defineStep, metrics } from './step.js';

const store = taskTokenStore();
const resumer = taskResumer();
/** Failure reasons too long for the workflow's state are kept whole under the run's prefix. */
const fullReasons = { store: s3Store(), artifactsBucket: artifactsBucket() };

/**
 * Subscribed to the async endpoint's success and error topics. The SNS event is never logged
 * (`defineStep`) and read defensively (an unreadable record is counted as malformed); each outcome is counted as a metric before a failed delivery is thrown back to
 * Lambda for retry.
 */
export const handler = defineStep(async (event: unknown, { logger }): Promise<NotificationSummary> => {
  const summary = await handleAsyncNotifications(readSnsRecords(event), {
    store,
    resumer,
    logger,
    nowEpochMs: Date.now,
    fullReasons,
  });
  for (const [outcome, count] of Object.entries(summary) as [NotificationOutcome, number][]) {
    if (count > 0) metrics.addMetric(NotificationMetrics[outcome], MetricUnit.Count, count);
  }
  throwIfRetryNeeded(summary);
  return summary;
});
