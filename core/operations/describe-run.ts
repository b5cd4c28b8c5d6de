import { z } from 'zod';
import {
  describeError,
  ErrorNames,
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  describeInvalidRunId,
  ExecutionStatuses,
  RUN_RESOURCES,
  type RunStatus,
  type RunWorkflow,
} from '../contracts/index.js';
import type { Logger } from '../ports/index.js';
import type { ExecutionDescription, ExecutionReader, RunRef } from '../run-status/index.js';
import {
  type ProgressProfile,
  readProgress,
  resultsOf,
  WORKFLOW_PROGRESS,
  parseProxyEvent,
  type ParsedEvent,
  requestContextSchema,
  resourceSchema,
  RUN_ROUTES,
} from '../run-status/index.js';

/**
 * `GET /runs/{id}` and `GET /async-runs/{id}`: a run's status, progress and, once it succeeded,
 * where its report is. The run id is checked before any call to Step Functions.
 */

export interface DescribeRunRequest {
  readonly workflow: RunWorkflow;
  /** The `{id}` path parameter as received (API Gateway only checks that it is present). */
  readonly runId: string | undefined;
}

export interface DescribeRunDeps {
  readonly executions: ExecutionReader;
  readonly logger: Logger;
  /** @default WORKFLOW_PROGRESS */
  readonly profiles?: Readonly<Record<RunWorkflow, ProgressProfile>>;
}

export type HttpReply = ApiReply<RunStatus>;

/** The part of the proxy event this route reads. */
const describeEventSchema = z.object({
  resource: resourceSchema,
  pathParameters: z.record(z.string(), z.string()).nullish(),
  requestContext: requestContextSchema({}),
});

/**
 * `/runs/{id}` → optimization, `/async-runs/{id}` → async inference, or the 400 answer to an event
 * API Gateway would not send.
 */
export function parseDescribeRunEvent(event: unknown): ParsedEvent<DescribeRunRequest> {
  const parsed = parseProxyEvent(event, describeEventSchema, RUN_ROUTES.describe);
  if ('refusal' in parsed) return parsed;
  const { workflow, event: read } = parsed.request;
  return { request: { workflow, runId: read.pathParameters?.id } };
}

export async function describeRun(request: DescribeRunRequest, deps: DescribeRunDeps): Promise<HttpReply> {
  const invalid = describeInvalidRunId(request.runId);
  if (invalid !== undefined || request.runId === undefined) {
    return apiFailure(400, ApiErrorCodes.invalidRunId, `Invalid run id: ${invalid ?? 'got no run id'}`);
  }
  const run: RunRef = { workflow: request.workflow, runId: request.runId };
  try {
    const execution = await deps.executions.describe(run);
    if (execution === undefined) {
      return apiFailure(
        404,
        ApiErrorCodes.runNotFound,
        `No ${run.workflow} run "${run.runId}": Step Functions has no execution by that name (it keeps ` +
          `ended executions for 90 days). Check the run id and the API (/${RUN_RESOURCES[run.workflow]})`,
      );
    }
    const profile = (deps.profiles ?? WORKFLOW_PROGRESS)[run.workflow];
    const progress = await readProgress(deps.executions.newestEvents(run), profile);
    return { statusCode: 200, body: { ...describeExecution(run, execution), progress } };
  } catch (error) {
    return unexpected(run, error, deps.logger);
  }
}

function describeExecution(run: RunRef, execution: ExecutionDescription): Omit<RunStatus, 'progress'> {
  const ended =
    execution.status !== ExecutionStatuses.running && execution.status !== ExecutionStatuses.pendingRedrive;
  const results = resultsOf(run.workflow, execution);
  return {
    runId: run.runId,
    workflow: run.workflow,
    status: execution.status,
    executionArn: execution.executionArn,
    startDate: execution.startDate.toISOString(),
    ...(execution.stopDate === undefined ? {} : { stopDate: execution.stopDate.toISOString() }),
    ...(ended && execution.error !== undefined ? { error: execution.error } : {}),
    ...(ended && execution.cause !== undefined ? { cause: execution.cause } : {}),
    ...(results?.report === undefined ? {} : { report: results.report }),
    ...(results?.outcome === undefined ? {} : { outcome: results.outcome }),
    ...(results?.proof === undefined ? {} : { proof: results.proof }),
    ...(results?.comparison === undefined ? {} : { comparison: results.comparison }),
  };
}

function unexpected(run: RunRef, error: unknown, logger: Logger): HttpReply {
  const name = error instanceof Error ? error.name : undefined;
  if (name === ErrorNames.transientService) {
    logger.warn('Step Functions unavailable while reading a run', { ...run, error: describeError(error) });
    return apiFailure(
      503,
      ApiErrorCodes.serviceUnavailable,
      `Could not read run "${run.runId}" now (${describeError(error)}): retry in a few seconds`,
    );
  }
  if (name === ErrorNames.resourceNotFound) {
    return apiFailure(404, ApiErrorCodes.runNotFound, describeError(error));
  }
  logger.error('Could not read a run', { ...run, error: describeError(error) });
  return apiFailure(
    500,
    ApiErrorCodes.internal,
    `Could not read run "${run.runId}": ${describeError(error)}`,
  );
}
