import { SFNClient } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyResult } from 'aws-lambda';
import { parseStartRunEvent, startRun, type StartRunReply } from '../handlers/start-run.js';
import { StateMachineVariables } from './adapters/sfn-execution-reader.js';
import { SfnRunStarter } from './adapters/sfn-run-starter.js';
import { getOptionalEnv, getRequiredEnv } from './config.js';
import { defineStep, tracer } from './step.js';

/** Where the state machine ARNs come from, for the error a missing variable raises. */
const SET_BY = 'the RunApi construct (infra/constructs/run-api.ts) sets it from the workflows it serves';

const asyncInferenceArn = getOptionalEnv(StateMachineVariables['async-inference']);
const starter = new SfnRunStarter({
  // One StartExecution per request; the SDK's standard retries cover a throttled call.
  client: tracer.captureAWSv3Client(new SFNClient({})),
  stateMachineArns: {
    optimization: getRequiredEnv(StateMachineVariables.optimization, SET_BY),
    ...(asyncInferenceArn === undefined ? {} : { 'async-inference': asyncInferenceArn }),
  },
});

/** `POST /runs` and `POST /async-runs` (Lambda proxy integration of the run API). */
export const handler = defineStep(async (event: unknown, { logger }): Promise<APIGatewayProxyResult> =>
  toProxyResult(await startRun(parseStartRunEvent(event), { starter, logger })),
);

function toProxyResult(reply: StartRunReply): APIGatewayProxyResult {
  return {
    statusCode: reply.statusCode,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(reply.body),
  };
}
