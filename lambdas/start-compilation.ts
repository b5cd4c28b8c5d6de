import type { StartCompilationEvent } from '../handlers/contracts/optimization-state.js';
import { startCompilation } from '../handlers/start-compilation.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { compilationTimings, sagemakerCompiler } from './wiring.js';

const compiler = sagemakerCompiler(createSageMakerClient(), { withRole: true });
const timings = compilationTimings();

/** State "Start compilation job". */
export const handler = defineStep((event: StartCompilationEvent, { logger }) =>
  startCompilation(event, { compiler, logger, ...timings, nowEpochMs: Date.now }),
);
