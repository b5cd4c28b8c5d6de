import type { APIGatewayProxyResult } from 'aws-lambda';
import { listRuns } from '../core/operations/list-runs.js';
import { RUN_ROUTES, parseRunRouteEvent } from '../core/run-status/index.js';
import { SfnRunLister } from './adapters/index.js';
import { runApiSfnClient, runApiStateMachineArns, answerProxyEvent } from './run-api-wiring.js';
import { defineStep } from './step.js';

const lister = new SfnRunLister({ client: runApiSfnClient(), stateMachineArns: runApiStateMachineArns() });

/** `GET /runs` and `GET /async-runs` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parseRunRouteEvent(event, RUN_ROUTES.list), logger, (request) =>
      listRuns(request, { lister, logger }),
    ),
);
