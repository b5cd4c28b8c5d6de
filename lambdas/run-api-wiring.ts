import { SFNClient } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Logger } from '../core/ports/index.js';
import type { ParsedEvent } from '../core/run-status/index.js';
import type { ApiReply, RunWorkflow } from '../core/contracts/index.js';
import { StateMachineVariables } from './run-event-variables.js';
import { getOptionalEnv, getRequiredEnv } from './config.js';
import { tracer } from './step.js';

/**
 * What the run API's Lambdas share: the state machines they serve, one Step Functions client, and
 * the proxy integration's answer.
 */

/** Where the state machine ARNs come from, for the error a missing variable raises. */
const SET_BY = 'the RunApi construct (infra/constructs/run-api.ts) sets it from the workflows it serves';

/** The deployed workflows' state machine ARNs; the async one is absent when it is not deployed. */
export function runApiStateMachineArns(): Readonly<Partial<Record<RunWorkflow, string>>> {
  const asyncInferenceArn = getOptionalEnv(StateMachineVariables['async-inference']);
  return {
    optimization: getRequiredEnv(StateMachineVariables.optimization, SET_BY),
    ...(asyncInferenceArn === undefined ? {} : { 'async-inference': asyncInferenceArn }),
  };
}

/** A few calls per request: the SDK's standard retries cover a throttled one. */
export function runApiSfnClient(): SFNClient {
  return tracer.captureAWSv3Client(new SFNClient({}));
}

/** A handler's reply as API Gateway's Lambda proxy integration expects it. */
export function toProxyResult<Body>(reply: ApiReply<Body>): APIGatewayProxyResult {
  return {
    statusCode: reply.statusCode,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(reply.body),
  };
}

/**
 * The answer to a proxy event: the route's own for a request read from it, else the 400 that
 * names what the event lacks (logged: such an event came from outside the API). Never a throw.
 */
export async function answerProxyEvent<Request, Body>(
  parsed: ParsedEvent<Request>,
  logger: Logger,
  answer: (request: Request) => Promise<ApiReply<Body>>,
): Promise<APIGatewayProxyResult> {
  if ('refusal' in parsed) {
    const { body } = parsed.refusal;
    logger.warn('Refused an event API Gateway does not send', {
      issues: 'issues' in body ? body.issues : undefined,
    });
    return toProxyResult(parsed.refusal);
  }
  return toProxyResult(await answer(parsed.request));
}
