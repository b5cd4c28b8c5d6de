import { IAMClient } from '@aws-sdk/client-iam';
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import type { EndpointRoleReader, PolicySimulator } from '../core/async/index.js';
import type { ValidateAsyncRunDeps } from '../core/steps/async/validate-async-run.js';
import { IamPolicySimulator, SageMakerEndpointRoleReader } from './adapters/index.js';
import { getNumberEnv, getOptionalEnv, getRequiredEnv, StepVariables } from './config.js';
import { createSageMakerClient } from './aws-clients.js';
import { tracer } from './step.js';
import { artifactsBucket, endpointTimings, region, s3Store, sagemakerHost } from './wiring.js';

/**
 * Settings and adapters of the async-inference workflow's entries, read from the environment once
 * at module scope (the stack sets these variables: infra/constructs/async-inference.ts).
 */

const ASYNC_SOURCE =
  "the async-inference workflow sets it from the stack's notification topics; outside Lambda, export it";

export interface AsyncNotificationTopics {
  readonly successTopicArn: string;
  readonly errorTopicArn: string;
}

export function asyncNotificationTopics(): AsyncNotificationTopics {
  return {
    successTopicArn: getRequiredEnv(StepVariables.asyncSuccessTopicArn, ASYNC_SOURCE),
    errorTopicArn: getRequiredEnv(StepVariables.asyncErrorTopicArn, ASYNC_SOURCE),
  };
}

/** Where SageMaker publishes and how it encrypts results of the endpoints the workflow deploys. */
export function asyncOutputSettings(): AsyncNotificationTopics & { readonly kmsKeyId?: string } {
  const kmsKeyId = getOptionalEnv(StepVariables.asyncOutputKmsKeyId);
  return { ...asyncNotificationTopics(), ...(kmsKeyId === undefined ? {} : { kmsKeyId }) };
}

/** The wait's TimeoutSeconds: 1 minute to the Step Functions maximum of a year. */
export function asyncWaitTimeoutSeconds(): number {
  return getNumberEnv(StepVariables.asyncWaitTimeoutSeconds, 26_100, {
    min: 60,
    max: 31_536_000,
    integer: true,
  });
}

/**
 * What checks a reused endpoint's execution role: its model's role (SageMaker) and IAM's policy
 * simulator. IAM is a global service: one client, its default endpoint.
 */
export function reusedEndpointRoleCheck(sagemaker: SageMakerClient): {
  readonly roles: EndpointRoleReader;
  readonly simulator: PolicySimulator;
  readonly topicsKeyArn: string;
} {
  return {
    roles: new SageMakerEndpointRoleReader(sagemaker),
    simulator: new IamPolicySimulator(tracer.captureAWSv3Client(new IAMClient({}))),
    topicsKeyArn: getRequiredEnv(StepVariables.asyncTopicsKeyArn, ASYNC_SOURCE),
  };
}

/**
 * What "Validate async run" plans with on AWS, built once at module scope: the state's Lambda and
 * the run API's plan route (lambdas/plan-run.ts) use the same adapters and settings. `file://` URIs
 * are refused (a Lambda cannot read the user's disk).
 */
export function validateAsyncRunDeps(): Omit<ValidateAsyncRunDeps, 'logger' | 'nowEpochMs'> {
  const sagemaker = createSageMakerClient();
  const { pollSeconds, maxPollSeconds } = endpointTimings();
  return {
    store: s3Store(),
    host: sagemakerHost(sagemaker, { withRole: false }),
    artifactsBucket: artifactsBucket(),
    region: region(),
    notificationTopics: asyncNotificationTopics(),
    waitTimeoutSeconds: asyncWaitTimeoutSeconds(),
    pollSeconds,
    polling: { pollSeconds, maxPollSeconds },
    reusedEndpointRole: reusedEndpointRoleCheck(sagemaker),
    allowFileUris: false,
  };
}
