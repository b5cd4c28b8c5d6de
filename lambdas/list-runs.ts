import type { APIGatewayProxyResult } from 'aws-lambda';
import { listRuns } from '../handlers/list-runs.js';
import { parseRunRouteEvent } from '../handlers/run-status/run-routes.js';
import { SfnRunLister } from './adapters/sfn-run-lister.js';
import { runApiSfnClient, runApiStateMachineArns, toProxyResult } from './run-api-wiring.js';
import { defineStep } from './step.js';

const lister = new SfnRunLister({ client: runApiSfnClient(), stateMachineArns: runApiStateMachineArns() });

/** `GET /runs` and `GET /async-runs` (Lambda proxy integration of the run API). */
export const handler = defineStep(async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
  toProxyResult(await listRuns(parseRunRouteEvent(event, 'list-runs', '/<r>'), { lister, logger })),
);
