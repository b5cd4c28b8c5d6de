import { checkEndpoint } from '../core/steps/optimization/check-endpoint.js';
import type { CheckEndpointEvent } from '../core/contracts/index.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { endpointTimings, sagemakerHost } from './wiring.js';

const host = sagemakerHost(createSageMakerClient(), { withRole: false });
const timings = endpointTimings();

/** State "Check endpoint". */
export const handler = defineStep((event: CheckEndpointEvent, { logger }) =>
  checkEndpoint(event, { host, logger, ...timings, nowEpochMs: Date.now }),
);
