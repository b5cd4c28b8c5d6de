import type { APIGatewayProxyResult } from 'aws-lambda';
import { RUN_SUBRESOURCES } from '../handlers/run-status/run-api-contract.js';
import { parseRunRouteEvent } from '../handlers/run-status/run-routes.js';
import { stopRun } from '../handlers/stop-run.js';
import { SfnExecutionReader } from './adapters/sfn-execution-reader.js';
import { SfnRunStopper } from './adapters/sfn-run-stopper.js';
import { runApiSfnClient, runApiStateMachineArns, toProxyResult } from './run-api-wiring.js';
import { defineStep } from './step.js';

const client = runApiSfnClient();
const executions = new SfnExecutionReader({ client, stateMachineArns: runApiStateMachineArns() });
const stopper = new SfnRunStopper({ client, executions });
const ROUTE = `/<r>/{id}/${RUN_SUBRESOURCES.stop}`;

/** `POST /runs/{id}/stop` and `POST /async-runs/{id}/stop` (Lambda proxy integration of the run API). */
export const handler = defineStep(async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
  toProxyResult(await stopRun(parseRunRouteEvent(event, 'stop-run', ROUTE), { executions, stopper, logger })),
);
