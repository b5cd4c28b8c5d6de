import { SFNClient } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { describeRun, type HttpReply, parseDescribeRunEvent } from '../handlers/describe-run.js';
import { SfnExecutionReader, StateMachineVariables } from './adapters/sfn-execution-reader.js';
import { getOptionalEnv, getRequiredEnv } from './config.js';
import { defineStep, tracer } from './step.js';

/** Where the state machine ARNs come from, for the error a missing variable raises. */
const SET_BY = 'the RunApi construct (infra/constructs/run-api.ts) sets it from the workflows it serves';

const asyncInferenceArn = getOptionalEnv(StateMachineVariables['async-inference']);
const executions = new SfnExecutionReader({
  // One DescribeExecution and a few GetExecutionHistory pages per request: standard retries suffice.
  client: tracer.captureAWSv3Client(new SFNClient({})),
  stateMachineArns: {
    optimization: getRequiredEnv(StateMachineVariables.optimization, SET_BY),
    ...(asyncInferenceArn === undefined ? {} : { 'async-inference': asyncInferenceArn }),
  },
});

/** `GET /runs/{id}` and `GET /async-runs/{id}` (Lambda proxy integration of the run API). */
export const handler = defineStep(async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
  toProxyResult(await describeRun(parseDescribeRunEvent(event), { executions, logger })),
);

function toProxyResult(reply: HttpReply): APIGatewayProxyResult {
  return {
    statusCode: reply.statusCode,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(reply.body),
  };
}
