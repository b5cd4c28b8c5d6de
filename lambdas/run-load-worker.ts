import type { RunLoadWorkerEvent } from '../core/contracts/index.js';
import { runLoadWorker } from '../core/steps/optimization/run-load-worker.js';
import { createRuntimeStreamTransportFactory, createRuntimeTransportFactory } from './adapters/index.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

/**
 * Time kept back from the Lambda's remaining time: the engine stops this long before the timeout,
 * leaving room to write the result to S3 and return.
 */
export const RESULT_SAFETY_MARGIN_MS = 15_000;

const store = s3Store();
const openTransport = createRuntimeTransportFactory();
const openStreamTransport = createRuntimeStreamTransportFactory();

/** State "Run load worker": one of a candidate's load workers, stopped before the Lambda times out. */
export const handler = defineStep((event: RunLoadWorkerEvent, { logger, context }) =>
  runLoadWorker(event, {
    store,
    openTransport,
    openStreamTransport,
    deadlineEpochMs: Date.now() + context.getRemainingTimeInMillis() - RESULT_SAFETY_MARGIN_MS,
    logger,
  }),
);
