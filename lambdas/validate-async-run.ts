import { validateAsyncRun, type ValidateAsyncRunEvent } from '../handlers/async/validate-async-run.js';
import { asyncNotificationTopics, asyncWaitTimeoutSeconds } from './async-wiring.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { artifactsBucket, endpointTimings, region, s3Store, sagemakerHost } from './wiring.js';

const store = s3Store();
const host = sagemakerHost(createSageMakerClient(), { withRole: false });
const polling = endpointTimings();
const settings = {
  artifactsBucket: artifactsBucket(),
  region: region(),
  notificationTopics: asyncNotificationTopics(),
  waitTimeoutSeconds: asyncWaitTimeoutSeconds(),
  pollSeconds: polling.pollSeconds,
  polling,
};

/** State "Validate async run". */
export const handler = defineStep((event: ValidateAsyncRunEvent, { logger }) =>
  validateAsyncRun(event, { store, host, ...settings, allowFileUris: false, nowEpochMs: Date.now, logger }),
);
