import { loadBatch } from '../core/steps/async/load-batch.js';
import type { LoadBatchEvent } from '../core/contracts/index.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();

/** State "Load batch inputs". */
export const handler = defineStep((event: LoadBatchEvent, { logger }) => loadBatch(event, { store, logger }));
