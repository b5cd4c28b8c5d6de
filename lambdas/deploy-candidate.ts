import type { DeployCandidateEvent } from '../core/contracts/index.js';
import { deployCandidate } from '../core/steps/optimization/deploy-candidate.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { endpointTimings, region, sagemakerHost } from './wiring.js';

const host = sagemakerHost(createSageMakerClient(), { withRole: true });
const timings = endpointTimings();
const awsRegion = region();

/** State "Deploy candidate". */
export const handler = defineStep((event: DeployCandidateEvent, { logger }) =>
  deployCandidate(event, { host, region: awsRegion, logger, ...timings, nowEpochMs: Date.now }),
);
