import type { APIGatewayProxyResult } from 'aws-lambda';
import { runEvents } from '../core/operations/run-events.js';
import { RUN_ROUTES, parseRunRouteEvent } from '../core/run-status/index.js';
import { SfnExecutionReader, SfnRunEvents } from './adapters/index.js';
import { runApiSfnClient, runApiStateMachineArns, answerProxyEvent } from './run-api-wiring.js';
import { defineStep } from './step.js';

const client = runApiSfnClient();
const events = new SfnRunEvents({
  client,
  executions: new SfnExecutionReader({ client, stateMachineArns: runApiStateMachineArns() }),
});

/** `GET /runs/{id}/events` and `GET /async-runs/{id}/events` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parseRunRouteEvent(event, RUN_ROUTES.events), logger, (request) =>
      runEvents(request, { events, logger }),
    ),
);
