import { z } from 'zod';
import { describeError, ErrorNames } from '../contracts/errors.js';
import type { Logger } from '../ports.js';
import type { RunRef } from './ports.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  describeInvalidRunId,
  RUN_RESOURCES,
  type RunWorkflow,
} from './run-api-contract.js';

/**
 * What the run API's read and stop routes share: reading the workflow, the run id and the query
 * string from an API Gateway REST proxy event, and the answers every route gives alike (an invalid
 * run id, a run that does not exist, Step Functions unavailable).
 */

export interface RunRouteRequest {
  readonly workflow: RunWorkflow;
  /** The `{id}` path parameter as received; absent on the collection routes. */
  readonly runId: string | undefined;
  readonly query: Readonly<Record<string, string>>;
  /** The caller's IAM identity (`requestContext.identity.userArn`), for the record. */
  readonly caller: string | undefined;
}

const proxyEventSchema = z.object({
  resource: z.string(),
  pathParameters: z.record(z.string(), z.string()).nullish(),
  queryStringParameters: z.record(z.string(), z.string()).nullish(),
  requestContext: z.object({ identity: z.object({ userArn: z.string().nullish() }).nullish() }).nullish(),
});

/**
 * Reads a proxy event of one of `routes`, each a path under a workflow's resource with `<r>` for it:
 * `/<r>` lists, `/<r>/{id}/stop` stops. `handler` names the Lambda in the error a wrong event raises.
 */
export function parseRunRouteEvent(event: unknown, handler: string, route: string): RunRouteRequest {
  const expected = Object.values(RUN_RESOURCES).map((resource) => route.replace('<r>', resource));
  const parsed = proxyEventSchema.safeParse(event);
  if (!parsed.success) {
    throw new Error(
      `${handler}: got an event without "resource", expected an API Gateway REST proxy event ` +
        `(Lambda proxy integration of ${expected.join(' or ')})`,
    );
  }
  const { resource, pathParameters, queryStringParameters, requestContext } = parsed.data;
  const entry = Object.entries(RUN_RESOURCES).find(([, path]) => resource === route.replace('<r>', path));
  if (entry === undefined) {
    throw new Error(`${handler}: got the resource ${resource}, expected one of ${expected.join(', ')}`);
  }
  return {
    workflow: entry[0] as RunWorkflow,
    runId: pathParameters?.id,
    query: queryStringParameters ?? {},
    caller: requestContext?.identity?.userArn ?? undefined,
  };
}

/** The run the request names, or the 400 answer for an invalid run id. */
export function runOf(request: RunRouteRequest): RunRef | ApiReply<never> {
  const invalid = describeInvalidRunId(request.runId);
  if (invalid !== undefined || request.runId === undefined) {
    return apiFailure(400, ApiErrorCodes.invalidRunId, `Invalid run id: ${invalid ?? 'got no run id'}`);
  }
  return { workflow: request.workflow, runId: request.runId };
}

export function isReply(value: RunRef | ApiReply<never>): value is ApiReply<never> {
  return 'statusCode' in value;
}

export function runNotFound(run: RunRef): ApiReply<never> {
  return apiFailure(
    404,
    ApiErrorCodes.runNotFound,
    `No ${run.workflow} run "${run.runId}": Step Functions has no execution by that name (it keeps ` +
      `ended executions for 90 days). Check the run id and the API (/${RUN_RESOURCES[run.workflow]})`,
  );
}

/** A failure no route expects: Step Functions unavailable (503), a workflow not deployed (404), else 500. */
export function unexpectedFailure(what: string, error: unknown, logger: Logger): ApiReply<never> {
  const name = error instanceof Error ? error.name : undefined;
  if (name === ErrorNames.transientService) {
    logger.warn(`AWS unavailable: ${what}`, { error: describeError(error) });
    return apiFailure(
      503,
      ApiErrorCodes.serviceUnavailable,
      `Could not ${what} now (${describeError(error)}): retry in a few seconds`,
    );
  }
  if (name === ErrorNames.resourceNotFound) {
    return apiFailure(404, ApiErrorCodes.runNotFound, describeError(error));
  }
  logger.error(`Could not ${what}`, { error: describeError(error) });
  return apiFailure(500, ApiErrorCodes.internal, `Could not ${what}: ${describeError(error)}`);
}
