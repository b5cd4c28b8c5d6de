import type { RampScalingEvent } from '../core/contracts/index.js';
import { rampScaling } from '../core/steps/optimization/ramp-scaling.js';
import { ApplicationAutoScalingRegistry } from './adapters/index.js';
import { createApplicationAutoScalingClient, createCloudWatchClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { endpointTimings } from './wiring.js';

/** Applies the report's two requests and deregisters them: one adapter for both. */
const scaling = new ApplicationAutoScalingRegistry({
  autoScaling: createApplicationAutoScalingClient(),
  cloudWatch: createCloudWatchClient(),
});
const { loadStartDelaySeconds } = endpointTimings();

/** States "Apply ramp scaling policy", "Deregister ramp scaling" and "Deregister failed ramp scaling". */
export const handler = defineStep((event: RampScalingEvent, { logger }) =>
  rampScaling(event, {
    applier: scaling,
    registry: scaling,
    logger,
    nowEpochMs: Date.now,
    loadStartDelaySeconds,
  }),
);
