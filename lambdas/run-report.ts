import { fromEnv } from '@aws-sdk/credential-providers';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { runReport } from '../core/operations/run-report.js';
import { RUN_ROUTES, parseRunRouteEvent } from '../core/run-status/index.js';
import { S3Presigner, SfnExecutionReader } from './adapters/index.js';
import { getRequiredEnv, StepVariables } from './config.js';
import { runApiSfnClient, runApiStateMachineArns, answerProxyEvent } from './run-api-wiring.js';
import { defineStep } from './step.js';

const executions = new SfnExecutionReader({
  client: runApiSfnClient(),
  stateMachineArns: runApiStateMachineArns(),
});
// Lambda puts its role's session credentials in the environment: the links carry its grant.
const presigner = new S3Presigner({
  region: getRequiredEnv(StepVariables.region, 'Lambda sets it'),
  credentials: fromEnv(),
});

/** `GET /runs/{id}/report` and `GET /async-runs/{id}/report` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parseRunRouteEvent(event, RUN_ROUTES.report), logger, (request) =>
      runReport(request, { executions, presigner, logger }),
    ),
);
