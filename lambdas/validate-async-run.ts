import { validateAsyncRun } from '../handlers/async/validate-async-run.js';
import type { ValidateAsyncRunEvent } from '../handlers/contracts/async-state.js';
import { asyncNotificationTopics, asyncWaitTimeoutSeconds, reusedEndpointRoleCheck } from './async-wiring.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { artifactsBucket, endpointTimings, region, s3Store, sagemakerHost } from './wiring.js';

const store = s3Store();
const sagemaker = createSageMakerClient();
const host = sagemakerHost(sagemaker, { withRole: false });
const polling = endpointTimings();
const settings = {
  artifactsBucket: artifactsBucket(),
  region: region(),
  notificationTopics: asyncNotificationTopics(),
  waitTimeoutSeconds: asyncWaitTimeoutSeconds(),
  pollSeconds: polling.pollSeconds,
  polling,
  reusedEndpointRole: reusedEndpointRoleCheck(sagemaker),
};

/** State "Validate async run". */
export const handler = defineStep((event: ValidateAsyncRunEvent, { logger }) =>
  validateAsyncRun(event, { store, host, ...settings, allowFileUris: false, nowEpochMs: Date.now, logger }),
);
