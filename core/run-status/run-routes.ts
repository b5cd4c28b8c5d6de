import { z } from 'zod';
import {
  describeError,
  ErrorNames,
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  describeInvalidRunId,
  RUN_RESOURCES,
  type RunWorkflow,
} from '../contracts/index.js';
import type { Logger } from '../ports/index.js';
import type { RunRef } from './ports.js';
import {
  parseProxyEvent,
  type ParsedEvent,
  requestContextSchema,
  resourceSchema,
  type RunRoute,
} from './proxy-event.js';

/**
 * What the run API's read and stop routes share: reading the workflow, the run id and the query
 * string from an API Gateway REST proxy event (proxy-event.ts), and the answers every route gives alike (an invalid
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

/** The part of the proxy event these routes read; a route without `{id}` has no path parameters. */
const routeEventSchema = z.object({
  resource: resourceSchema,
  pathParameters: z.record(z.string(), z.string()).nullish(),
  queryStringParameters: z.record(z.string(), z.string()).nullish(),
  requestContext: requestContextSchema({
    identity: z.object({ userArn: z.string().nullish() }).nullish(),
  }),
});

/**
 * Reads a proxy event of `route` (its path under a workflow's resource, with `<r>` for it: `/<r>`
 * lists, `/<r>/{id}/stop` stops), or answers 400 for an event API Gateway would not send.
 */
export function parseRunRouteEvent(event: unknown, route: RunRoute): ParsedEvent<RunRouteRequest> {
  const parsed = parseProxyEvent(event, routeEventSchema, route);
  if ('refusal' in parsed) return parsed;
  const { workflow, event: read } = parsed.request;
  return {
    request: {
      workflow,
      runId: read.pathParameters?.id,
      query: read.queryStringParameters ?? {},
      caller: read.requestContext.identity?.userArn ?? undefined,
    },
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
