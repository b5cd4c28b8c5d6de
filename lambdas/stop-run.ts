import type { APIGatewayProxyResult } from 'aws-lambda';
import { RUN_ROUTES, parseRunRouteEvent } from '../core/run-status/index.js';
import { stopRun } from '../core/operations/stop-run.js';
import { SfnExecutionReader, SfnRunStopper } from './adapters/index.js';
import { runApiSfnClient, runApiStateMachineArns, answerProxyEvent } from './run-api-wiring.js';
import { defineStep } from './step.js';

const client = runApiSfnClient();
const executions = new SfnExecutionReader({ client, stateMachineArns: runApiStateMachineArns() });
const stopper = new SfnRunStopper({ client, executions });

/** `POST /runs/{id}/stop` and `POST /async-runs/{id}/stop` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parseRunRouteEvent(event, RUN_ROUTES.stop), logger, (request) =>
      stopRun(request, { executions, stopper, logger }),
    ),
);
