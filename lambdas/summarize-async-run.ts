import { summarizeAsyncRun } from '../core/steps/async/summarize-async-run.js';
import type { SummarizeAsyncRunEvent } from '../core/contracts/index.js';
import { defineStep } from './step.js';
import { asyncEndpointObserver, s3Store } from './wiring.js';

const store = s3Store();
const observer = asyncEndpointObserver();

/** State "Summarize async run". */
export const handler = defineStep((event: SummarizeAsyncRunEvent, { logger }) =>
  summarizeAsyncRun(event, { store, observer, logger, nowEpochMs: Date.now, measuredLocally: false }),
);
