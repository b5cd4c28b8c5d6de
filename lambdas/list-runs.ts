import type { APIGatewayProxyResult } from 'aws-lambda';
import { listRuns } from '../core/operations/list-runs.js';
import { RUN_ROUTES } from '../core/run-status/proxy-event.js';
import { parseRunRouteEvent } from '../core/run-status/run-routes.js';
import { SfnRunLister } from './adapters/sfn-run-lister.js';
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
