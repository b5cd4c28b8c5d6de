import { cleanUpRun } from '../handlers/clean-up.js';
import type { CleanUpEvent } from '../handlers/contracts/optimization-state.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { sagemakerCompiler, sagemakerHost, sagemakerOptimizer, scalingRegistry } from './wiring.js';

const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const compiler = sagemakerCompiler(sagemaker, { withRole: false });
const optimizer = sagemakerOptimizer(sagemaker, { withRole: false });
/** The ramp endpoint's scaling, deregistered before the endpoint is deleted when the ramp could not. */
const scaling = scalingRegistry();

/** States "Clean up run resources" and "Clean up after failure". */
export const handler = defineStep((event: CleanUpEvent, { logger }) =>
  cleanUpRun(event, { host, compiler, optimizer, scaling, logger }),
);
