import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import type { QualityPassEvent } from '../core/contracts/index.js';
import { qualityPass } from '../core/steps/optimization/quality-pass.js';
import { createSageMakerEndpointAnswerer } from './adapters/index.js';
import { tracer } from './step.js';
import { defineStep } from './step.js';
import { s3Store } from './wiring.js';

/** Time kept back from the Lambda's remaining time to store the answers and return. */
export const ANSWERS_SAFETY_MARGIN_MS = 15_000;

const store = s3Store();
/**
 * One request at a time, a handful per candidate: the SDK's standard retries would hide a
 * throttled answer as a slow one, which matters to nobody here, so they are kept.
 */
const answerer = createSageMakerEndpointAnswerer(tracer.captureAWSv3Client(new SageMakerRuntimeClient({})));

/** States "Record candidate answers" and "Judge output quality". */
export const handler = defineStep((event: QualityPassEvent, { logger, context }) =>
  qualityPass(event, {
    store,
    answerer,
    logger,
    deadlineEpochMs: Date.now() + context.getRemainingTimeInMillis() - ANSWERS_SAFETY_MARGIN_MS,
  }),
);
