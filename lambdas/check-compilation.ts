import { checkCompilation } from '../handlers/check-compilation.js';
import type { CompilationState } from '../handlers/contracts/optimization-state.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { compilationTimings, sagemakerCompiler } from './wiring.js';

const compiler = sagemakerCompiler(createSageMakerClient(), { withRole: false });
const timings = compilationTimings();

/** State "Check compilation job". */
export const handler = defineStep((event: CompilationState, { logger }) =>
  checkCompilation(event, { compiler, logger, ...timings, nowEpochMs: Date.now }),
);
