import { getNumberEnv, getOptionalEnv, getRequiredEnv, StepVariables } from './config.js';

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
