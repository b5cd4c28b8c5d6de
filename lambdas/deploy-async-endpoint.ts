import { deployAsyncEndpoint } from '../core/steps/async/deploy-async-endpoint.js';
import type { PrepareAsyncEndpointEvent } from '../core/contracts/index.js';
import { asyncOutputSettings } from './async-wiring.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { endpointTimings, sagemakerHost, scalingRegistry } from './wiring.js';

const host = sagemakerHost(createSageMakerClient(), { withRole: true });
const scaling = scalingRegistry();
const output = asyncOutputSettings();
const { pollSeconds, maxPollSeconds } = endpointTimings();

/** State "Deploy async endpoint". */
export const handler = defineStep((event: PrepareAsyncEndpointEvent, { logger }) =>
  deployAsyncEndpoint(event, {
    host,
    scaling,
    output,
    pollSeconds,
    maxPollSeconds,
    nowEpochMs: Date.now,
    logger,
  }),
);
