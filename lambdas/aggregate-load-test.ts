import { aggregateLoadTest } from '../core/steps/optimization/aggregate-load-test.js';
import type { AggregateLoadTestEvent } from '../core/contracts/index.js';
import { defineStep } from './step.js';
import { endpointTimings, s3Store } from './wiring.js';

const store = s3Store();
// The next segment's workers get the same head start as the first segment's ("Check endpoint").
const { loadStartDelaySeconds } = endpointTimings();

/** State "Aggregate load test". */
export const handler = defineStep((event: AggregateLoadTestEvent, { logger }) =>
  aggregateLoadTest(event, { store, logger, nowEpochMs: Date.now, loadStartDelaySeconds }),
);
