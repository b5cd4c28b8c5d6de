import { SFNClient } from '@aws-sdk/client-sfn';
import { cleanUpFailedRun } from '../core/operations/clean-up-failed-run.js';
import { SfnExecutionDescriber } from './adapters/index.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep, tracer } from './step.js';
import { sagemakerCompiler, sagemakerHost, sagemakerOptimizer, scalingRegistry } from './wiring.js';

const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const compiler = sagemakerCompiler(sagemaker, { withRole: false });
const optimizer = sagemakerOptimizer(sagemaker, { withRole: false });
// Async runs' endpoints autoscale: their scalable targets are deregistered before deletion.
const scaling = scalingRegistry();
// Reads the execution at every attempt: a run redriven since, or one that ended in "No
// recommendation", is left alone.
const describer = new SfnExecutionDescriber({ client: tracer.captureAWSv3Client(new SFNClient({})) });

/**
 * The Task of the "Clean up failed run" state machine, which the EventBridge rule on optimization
 * and async executions that end FAILED, TIMED_OUT or ABORTED starts with the event: deletes the
 * run's resources (the event is validated by the core).
 */
export const handler = defineStep((event: unknown, { logger }) =>
  cleanUpFailedRun(event, { host, compiler, optimizer, scaling, describer, logger }),
);
