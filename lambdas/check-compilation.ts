import { checkCompilation } from '../core/steps/optimization/check-compilation.js';
import type { CompilationState } from '../core/contracts/index.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { compilationTimings, sagemakerCompiler, sagemakerOptimizer } from './wiring.js';

const sagemaker = createSageMakerClient();
const compiler = sagemakerCompiler(sagemaker, { withRole: false });
const optimizer = sagemakerOptimizer(sagemaker, { withRole: false });
const timings = compilationTimings();

/** State "Check compilation job". */
export const handler = defineStep((event: CompilationState, { logger }) =>
  checkCompilation(event, { compiler, optimizer, logger, ...timings, nowEpochMs: Date.now }),
);
