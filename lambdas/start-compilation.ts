import type { StartCompilationEvent } from '../core/contracts/index.js';
import { startCompilation } from '../core/steps/optimization/start-compilation.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { compilationTimings, sagemakerCompiler, sagemakerOptimizer } from './wiring.js';

const sagemaker = createSageMakerClient();
const compiler = sagemakerCompiler(sagemaker, { withRole: true });
const optimizer = sagemakerOptimizer(sagemaker, { withRole: true });
const timings = compilationTimings();

/** State "Start compilation job". */
export const handler = defineStep((event: StartCompilationEvent, { logger }) =>
  startCompilation(event, { compiler, optimizer, logger, ...timings, nowEpochMs: Date.now }),
);
