import { cleanUpFailedRun } from '../handlers/clean-up-failed-run.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { sagemakerCompiler, sagemakerHost, scalingRegistry } from './wiring.js';

const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const compiler = sagemakerCompiler(sagemaker, { withRole: false });
// Async runs' endpoints autoscale: their scalable targets are deregistered before deletion.
const scaling = scalingRegistry();

/**
 * The Task of the "Clean up failed run" state machine, which the EventBridge rule on optimization
 * and async executions that end FAILED, TIMED_OUT or ABORTED starts with the event: deletes the
 * run's resources (the event is validated by the core).
 */
export const handler = defineStep((event: unknown, { logger }) =>
  cleanUpFailedRun(event, { host, compiler, scaling, logger }),
);
