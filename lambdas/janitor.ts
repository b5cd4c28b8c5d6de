import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { SFNClient } from '@aws-sdk/client-sfn';
import { DEFAULT_JANITOR_MAX_AGE_HOURS, JANITOR_LIMITS, JanitorMetrics } from '../core/contracts/index.js';
import { notDeletedBy, parseJanitorEvent, sweepStaleResources } from '../core/operations/janitor.js';
import { ApplicationAutoScalingRegistry, SfnRunActivity } from './adapters/index.js';
import { StateMachineVariables } from './run-event-variables.js';
import {
  createApplicationAutoScalingClient,
  createCloudWatchClient,
  createSageMakerClient,
} from './aws-clients.js';
import { getNumberEnv, getOptionalEnv, getRequiredEnv, StepVariables } from './config.js';
import { defineStep, metrics, tracer } from './step.js';
import { sagemakerHost } from './wiring.js';

/** Where the state machine ARNs come from, for the error a missing variable raises. */
const SET_BY =
  'the SafetyNet construct (infra/constructs/safety-net.ts) sets it from the workflows it watches';

/** The stack sets the deployed values (safety-net.ts); these defaults serve a bare invocation. */
const maxAgeHours = getNumberEnv(StepVariables.janitorMaxAgeHours, DEFAULT_JANITOR_MAX_AGE_HOURS, {
  min: 1,
  max: JANITOR_LIMITS.maxAgeHours.max,
});
const graceMinutes = getNumberEnv(StepVariables.janitorGraceMinutes, JANITOR_LIMITS.graceMinutes.default, {
  min: JANITOR_LIMITS.graceMinutes.min,
  max: JANITOR_LIMITS.graceMinutes.max,
});

const host = sagemakerHost(createSageMakerClient(), { withRole: false });
// One DeleteAlarms and one DeregisterScalableTarget per swept variant: standard retries suffice.
const scaling = new ApplicationAutoScalingRegistry({
  autoScaling: createApplicationAutoScalingClient(),
  cloudWatch: createCloudWatchClient(),
});
const asyncInferenceArn = getOptionalEnv(StateMachineVariables['async-inference']);
const runs = new SfnRunActivity({
  // One DescribeExecution per workflow and run past the grace: standard retries suffice.
  client: tracer.captureAWSv3Client(new SFNClient({})),
  stateMachineArns: {
    optimization: getRequiredEnv(StateMachineVariables.optimization, SET_BY),
    ...(asyncInferenceArn === undefined ? {} : { 'async-inference': asyncInferenceArn }),
  },
});

/**
 * The janitor, on an EventBridge Scheduler schedule: sweeps the project's resources whose run is
 * over. Every sweep counts what it could not delete (`StaleResourcesNotDeleted`, 0 when nothing),
 * which the stack alarms on; a sweep that fails before deciding anything counts 1.
 */
export const handler = defineStep(async (event: unknown, { logger }) => {
  const request = parseJanitorEvent(event);
  try {
    const summary = await sweepStaleResources(
      { maxAgeHours, graceMinutes, nowEpochMs: Date.now(), ...request },
      { host, scaling, runs, logger },
    );
    metrics.addMetric(JanitorMetrics.notDeleted, MetricUnit.Count, summary.notDeleted);
    return summary;
  } catch (error) {
    metrics.addMetric(JanitorMetrics.notDeleted, MetricUnit.Count, notDeletedBy(error));
    throw error;
  }
});
