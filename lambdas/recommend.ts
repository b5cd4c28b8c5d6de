import type { RecommendEvent } from '../handlers/contracts/optimization-state.js';
import { recommend } from '../handlers/recommend.js';
import { CloudWatchEndpointMetrics } from './adapters/cloudwatch-endpoint-metrics.js';
import { createCloudWatchClient } from './aws-clients.js';
import { defineStep } from './step.js';
import { region, s3Store } from './wiring.js';

const store = s3Store();
/** Each candidate's ModelLatency, OverheadLatency and utilization over its test window. */
const metrics = new CloudWatchEndpointMetrics({ client: createCloudWatchClient() });
const awsRegion = region();

/** State "Recommend": measured on AWS, so the report does not carry the local-mode caveat. */
export const handler = defineStep((event: RecommendEvent, { logger }) =>
  recommend(event, {
    store,
    logger,
    metrics,
    region: awsRegion,
    measuredLocally: false,
    now: () => new Date(),
  }),
);
