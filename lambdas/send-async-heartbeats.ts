import { LOST_NOTIFICATION_AFTER_MS } from '../core/operations/lost-notification.js';
import { sendAsyncHeartbeats } from '../core/operations/send-async-heartbeats.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { s3Store, sagemakerHost, taskResumer, taskTokenStore } from './wiring.js';

const store = taskTokenStore();
const resumer = taskResumer();
const host = sagemakerHost(createSageMakerClient(), { withRole: false });
/** Where SageMaker writes the results of late tasks (the artifacts bucket, under the run). */
const objects = s3Store();

/** The heartbeat sender, on an EventBridge Scheduler schedule (the event itself is not used). */
export const handler = defineStep((_event: unknown, { logger }) =>
  sendAsyncHeartbeats({
    store,
    resumer,
    host,
    objects,
    lostNotificationAfterMs: LOST_NOTIFICATION_AFTER_MS,
    logger,
    nowEpochMs: Date.now,
  }),
);
