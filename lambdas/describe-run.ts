import type { APIGatewayProxyResult } from 'aws-lambda';
import { describeRun, parseDescribeRunEvent } from '../core/operations/describe-run.js';
import { SfnExecutionReader } from './adapters/index.js';
import { runApiSfnClient, runApiStateMachineArns, answerProxyEvent } from './run-api-wiring.js';
import { defineStep } from './step.js';

const executions = new SfnExecutionReader({
  client: runApiSfnClient(),
  stateMachineArns: runApiStateMachineArns(),
});

/** `GET /runs/{id}` and `GET /async-runs/{id}` (Lambda proxy integration of the run API). */
export const handler = defineStep(
  async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
    await answerProxyEvent(parseDescribeRunEvent(event), logger, (request) =>
      describeRun(request, { executions, logger }),
    ),
);
