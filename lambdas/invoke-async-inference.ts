import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { invokeAsyncInference } from '../core/steps/async/invoke-async-inference.js';
import type { InvokeAsyncInferenceEvent } from '../core/contracts/index.js';
import { SageMakerAsyncInvoker } from './adapters/index.js';
import { taskResumer, taskTokenStore } from './wiring.js';
import { defineStep, tracer } from './step.js';

const store = taskTokenStore();
const resumer = taskResumer();
const invoker = new SageMakerAsyncInvoker({
  client: tracer.captureAWSv3Client(new SageMakerRuntimeClient({})),
});

/** State "Invoke async inference" (`.waitForTaskToken`): its result is ignored by the task. */
export const handler = defineStep((event: InvokeAsyncInferenceEvent, { logger }) =>
  invokeAsyncInference(event, { store, resumer, invoker, logger, nowEpochMs: Date.now }),
);
