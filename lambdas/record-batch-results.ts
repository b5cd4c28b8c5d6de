import { recordBatchResults, type RecordBatchEvent } from '../handlers/async/batches.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();

/** State "Record batch results". */
export const handler = defineStep((event: RecordBatchEvent, { logger }) =>
  recordBatchResults(event, { store, logger }),
);
