import type { CleanUpStepEvent } from '../core/contracts/index.js';
import { cleanUpOptimizationRun } from '../core/steps/optimization/clean-up.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { s3Store, sagemakerCompiler, sagemakerHost, sagemakerOptimizer, scalingRegistry } from './wiring.js';

const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const compiler = sagemakerCompiler(sagemaker, { withRole: false });
const optimizer = sagemakerOptimizer(sagemaker, { withRole: false });
/** The ramp endpoint's scaling, deregistered before the endpoint is deleted when the ramp could not. */
const scaling = scalingRegistry();
/** After a failure: the report or the load-test results stored before it, named in the run's error. */
const store = s3Store();

/** States "Clean up run resources", "Delete candidates not kept" and "Clean up after failure". */
export const handler = defineStep((event: CleanUpStepEvent, { logger }) =>
  cleanUpOptimizationRun(event, { host, compiler, optimizer, scaling, store, logger }),
);
