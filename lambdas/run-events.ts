import type { APIGatewayProxyResult } from 'aws-lambda';
import { runEvents } from '../handlers/run-events.js';
import { RUN_SUBRESOURCES } from '../handlers/run-status/run-api-contract.js';
import { parseRunRouteEvent } from '../handlers/run-status/run-routes.js';
import { SfnExecutionReader } from './adapters/sfn-execution-reader.js';
import { SfnRunEvents } from './adapters/sfn-run-events.js';
import { runApiSfnClient, runApiStateMachineArns, toProxyResult } from './run-api-wiring.js';
import { defineStep } from './step.js';

const client = runApiSfnClient();
const events = new SfnRunEvents({
  client,
  executions: new SfnExecutionReader({ client, stateMachineArns: runApiStateMachineArns() }),
});
const ROUTE = `/<r>/{id}/${RUN_SUBRESOURCES.events}`;

/** `GET /runs/{id}/events` and `GET /async-runs/{id}/events` (Lambda proxy integration of the run API). */
export const handler = defineStep(async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
  toProxyResult(await runEvents(parseRunRouteEvent(event, 'run-events', ROUTE), { events, logger })),
);
