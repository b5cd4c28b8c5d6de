import { checkAsyncEndpoint } from '../core/steps/async/check-async-endpoint.js';
import type { PrepareAsyncEndpointEvent } from '../core/contracts/index.js';
import { asyncOutputSettings } from './async-wiring.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { endpointTimings, sagemakerHost, scalingRegistry } from './wiring.js';

const host = sagemakerHost(createSageMakerClient(), { withRole: false });
const scaling = scalingRegistry();
const output = asyncOutputSettings();
const { pollSeconds, maxPollSeconds } = endpointTimings();

/** State "Check async endpoint". */
export const handler = defineStep((event: PrepareAsyncEndpointEvent, { logger }) =>
  checkAsyncEndpoint(event, {
    host,
    scaling,
    output,
    pollSeconds,
    maxPollSeconds,
    nowEpochMs: Date.now,
    logger,
  }),
);
