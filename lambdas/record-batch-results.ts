import { recordBatchResults } from '../core/steps/async/record-batch-results.js';
import type { RecordBatchEvent } from '../core/contracts/index.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

const store = s3Store();

/** State "Record batch results". */
export const handler = defineStep((event: RecordBatchEvent, { logger }) =>
  recordBatchResults(event, { store, logger }),
);
