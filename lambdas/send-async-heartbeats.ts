import { sendAsyncHeartbeats } from '../handlers/async/send-async-heartbeats.js';
import { createSageMakerClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { sagemakerHost, taskResumer, taskTokenStore } from './wiring.js';

const store = taskTokenStore();
const resumer = taskResumer();
const host = sagemakerHost(createSageMakerClient(), { withRole: false });

/** The heartbeat sender, on an EventBridge Scheduler schedule (the event itself is not used). */
export const handler = defineStep((_event: unknown, { logger }) =>
  sendAsyncHeartbeats({ store, resumer, host, logger, nowEpochMs: Date.now }),
);
