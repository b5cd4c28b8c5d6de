import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SFNClient } from '@aws-sdk/client-sfn';
import { parseApprovedModelRunTemplate } from '../core/planning/index.js';
import { startApprovedModelRun } from '../core/operations/start-approved-model-run.js';
import { ApprovedModelRunMetrics } from '../core/contracts/index.js';
import { SfnExecutionStarter } from './adapters/index.js';
import { getRequiredEnv } from './config.js';
import { RUN_EVENT_VARIABLE_SOURCE, RunEventVariables } from './run-event-variables.js';
import { defineStep, metrics, tracer } from './step.js';

/** Checked at cold start as at synth: a template edited by hand fails here, naming the field. */
const template = parseApprovedModelRunTemplate(
  JSON.parse(getRequiredEnv(RunEventVariables.approvedModelRunTemplate, RUN_EVENT_VARIABLE_SOURCE)),
);
const starter = new SfnExecutionStarter({
  client: tracer.captureAWSv3Client(new SFNClient({})),
  stateMachineArn: getRequiredEnv(RunEventVariables.optimizationStateMachineArn, RUN_EVENT_VARIABLE_SOURCE),
});

/**
 * Target of the EventBridge rule on approved versions of the configured model package groups:
 * starts the optimization run of the version (the event is validated by the core), and counts the
 * outcome.
 */
export const handler = defineStep(async (event: unknown, { logger }) => {
  const result = await startApprovedModelRun(event, { template, starter, logger });
  metrics.addMetric(ApprovedModelRunMetrics[result.outcome], MetricUnit.Count, 1);
  return result;
});
