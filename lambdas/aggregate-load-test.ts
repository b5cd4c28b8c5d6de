import { aggregateLoadTest } from '../handlers/aggregate-load-test.js';
import type { AggregateLoadTestEvent } from '../handlers/contracts/optimization-state.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();

/** State "Aggregate load test". */
export const handler = defineStep((event: AggregateLoadTestEvent, { logger }) =>
  aggregateLoadTest(event, { store, logger }),
);
