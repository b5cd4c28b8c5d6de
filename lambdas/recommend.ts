import type { RecommendEvent } from '../core/contracts/index.js';
import { recommend } from '../core/steps/optimization/recommend.js';
import { CloudWatchEndpointMetrics, CloudWatchInvocationsPerInstance } from './adapters/index.js';
import { createCloudWatchClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { region, s3Store } from './wiring.js';

const store = s3Store();
/** Each candidate's ModelLatency, OverheadLatency and utilization over its test window. */
const cloudWatch = createCloudWatchClient();
const metrics = new CloudWatchEndpointMetrics({ client: cloudWatch });
/** A multi-instance candidate's InvocationsPerInstance, as "Record proof" reads the proof's. */
const invocations = new CloudWatchInvocationsPerInstance({ client: cloudWatch });
const awsRegion = region();

/** State "Recommend": measured on AWS, so the report does not carry the local-mode caveat. */
export const handler = defineStep((event: RecommendEvent, { logger }) =>
  recommend(event, {
    store,
    logger,
    metrics,
    invocations,
    region: awsRegion,
    measuredLocally: false,
    now: () => new Date(),
  }),
);
