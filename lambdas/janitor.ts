import { parseJanitorEvent, sweepStaleResources } from '../handlers/janitor.js';
import { ApplicationAutoScalingRegistry } from './adapters/application-autoscaling-registry.js';
import {
  createApplicationAutoScalingClient,
  createCloudWatchClient,
  createSageMakerClient,
} from './aws-clients.js';
import { getNumberEnv, JANITOR_MAX_AGE_LIMIT_HOURS, StepVariables } from './config.js';
import { defineStep } from './step.js';
import { sagemakerHost } from './wiring.js';

/**
 * 24 h by default: the optimization workflow's default execution timeout
 * (workflows/optimization-workflow.ts), so anything older belongs to an execution that has ended.
 * A stack that raises that timeout must raise this with it (the stack sets it: safety-net.ts).
 */
const DEFAULT_MAX_AGE_HOURS = 24;
const maxAgeHours = getNumberEnv(StepVariables.janitorMaxAgeHours, DEFAULT_MAX_AGE_HOURS, {
  min: 1,
  max: JANITOR_MAX_AGE_LIMIT_HOURS,
});

const host = sagemakerHost(createSageMakerClient(), { withRole: false });
// One DeleteAlarms and one DeregisterScalableTarget per swept variant: standard retries suffice.
const scaling = new ApplicationAutoScalingRegistry({
  autoScaling: createApplicationAutoScalingClient(),
  cloudWatch: createCloudWatchClient(),
});

/** The janitor, on an EventBridge Scheduler schedule: sweeps the project's stale endpoints. */
export const handler = defineStep((event: unknown, { logger }) =>
  sweepStaleResources(
    { maxAgeHours, nowEpochMs: Date.now(), ...parseJanitorEvent(event) },
    { host, scaling, logger },
  ),
);
