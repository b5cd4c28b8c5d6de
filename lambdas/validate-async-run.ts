import { validateAsyncRun } from '../core/steps/async/validate-async-run.js';
import type { ValidateAsyncRunEvent } from '../core/contracts/index.js';
import { validateAsyncRunDeps } from './async-wiring.js';
import { defineStep } from './step.js';

const deps = validateAsyncRunDeps();

/** State "Validate async run". */
export const handler = defineStep((event: ValidateAsyncRunEvent, { logger }) =>
  validateAsyncRun(event, { ...deps, nowEpochMs: Date.now, logger }),
);
