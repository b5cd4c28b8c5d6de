import { cleanUpAsyncRun } from '../core/steps/async/clean-up-async-run.js';
import type { CleanUpAsyncRunEvent } from '../core/contracts/index.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { s3Store, sagemakerHost, scalingRegistry } from './wiring.js';

const host = sagemakerHost(createSageMakerClient(), { withRole: false });
const scaling = scalingRegistry();
const store = s3Store();

/** States "Clean up async run" and "Clean up after failure" of the async workflow. */
export const handler = defineStep((event: CleanUpAsyncRunEvent, { logger }) =>
  cleanUpAsyncRun(event, { host, scaling, store, logger }),
);
