import { SFNClient } from '@aws-sdk/client-sfn';
import { DEFAULT_JANITOR_MAX_AGE_HOURS } from '../handlers/contracts/run-timeouts.js';
import { parseJanitorEvent, sweepStaleResources } from '../handlers/janitor.js';
import { ApplicationAutoScalingRegistry } from './adapters/application-autoscaling-registry.js';
import { StateMachineVariables } from './adapters/sfn-execution-reader.js';
import { SfnRunActivity } from './adapters/sfn-run-activity.js';
import {
  createApplicationAutoScalingClient,
  createCloudWatchClient,
  createSageMakerClient,
} from './aws-clients.js';
import {
  getNumberEnv,
  getOptionalEnv,
  getRequiredEnv,
  JANITOR_MAX_AGE_LIMIT_HOURS,
  StepVariables,
} from './config.js';
import { defineStep, tracer } from './step.js';
import { sagemakerHost } from './wiring.js';

/** Where the state machine ARNs come from, for the error a missing variable raises. */
const SET_BY =
  'the SafetyNet construct (infra/constructs/safety-net.ts) sets it from the workflows it watches';

/**
 * One hour past the longer of the two workflows' default execution timeouts
 * (handlers/contracts/run-timeouts.ts); the stack sets the deployed value (safety-net.ts).
 */
const maxAgeHours = getNumberEnv(StepVariables.janitorMaxAgeHours, DEFAULT_JANITOR_MAX_AGE_HOURS, {
  min: 1,
  max: JANITOR_MAX_AGE_LIMIT_HOURS,
});

const host = sagemakerHost(createSageMakerClient(), { withRole: false });
// One DeleteAlarms and one DeregisterScalableTarget per swept variant: standard retries suffice.
const scaling = new ApplicationAutoScalingRegistry({
  autoScaling: createApplicationAutoScalingClient(),
  cloudWatch: createCloudWatchClient(),
});
const asyncInferenceArn = getOptionalEnv(StateMachineVariables['async-inference']);
const runs = new SfnRunActivity({
  // One DescribeExecution per workflow and stale run: standard retries suffice.
  client: tracer.captureAWSv3Client(new SFNClient({})),
  stateMachineArns: {
    optimization: getRequiredEnv(StateMachineVariables.optimization, SET_BY),
    ...(asyncInferenceArn === undefined ? {} : { 'async-inference': asyncInferenceArn }),
  },
});

/** The janitor, on an EventBridge Scheduler schedule: sweeps the project's stale endpoints. */
export const handler = defineStep((event: unknown, { logger }) =>
  sweepStaleResources(
    { maxAgeHours, nowEpochMs: Date.now(), ...parseJanitorEvent(event) },
    { host, scaling, runs, logger },
  ),
);
