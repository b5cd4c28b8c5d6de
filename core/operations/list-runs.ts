import type { Logger } from '../ports/index.js';
import type { RunLister } from '../run-status/index.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  type ExecutionStatus,
  ExecutionStatuses,
  RUN_LIST_LIMITS,
  type RunList,
} from '../contracts/index.js';
import { type RunRouteRequest, unexpectedFailure } from '../run-status/index.js';

/**
 * `GET /runs` and `GET /async-runs`: the workflow's runs, newest first, filtered by `status`, by
 * `since` (runs started at or after an ISO 8601 date) and capped at `limit`. The query is checked
 * before any call, each refused parameter named with what was given and what is accepted.
 */

export interface ListRunsDeps {
  readonly lister: RunLister;
  readonly logger: Logger;
}

/**
 * ListExecutions' `statusFilter` accepts every ExecutionStatus, but PENDING_REDRIVE only with a
 * `mapRunArn` (Step Functions API reference, ListExecutions): with a state machine it is a
 * ValidationException, so the API does not offer it.
 */
const LISTABLE_STATUSES: readonly ExecutionStatus[] = Object.values(ExecutionStatuses).filter(
  (status) => status !== ExecutionStatuses.pendingRedrive,
);

const QUERY_PARAMETERS: readonly string[] = ['status', 'since', 'limit'];

export async function listRuns(request: RunRouteRequest, deps: ListRunsDeps): Promise<ApiReply<RunList>> {
  const filters = readFilters(request.query);
  if ('problems' in filters) {
    return apiFailure(400, ApiErrorCodes.invalidRequest, `Invalid query: ${filters.problems.join('; ')}`);
  }
  try {
    const { executions, truncated } = await deps.lister.list({ workflow: request.workflow, ...filters });
    return {
      statusCode: 200,
      body: {
        runs: executions.map((execution) => ({
          runId: execution.name,
          workflow: request.workflow,
          status: execution.status,
          executionArn: execution.executionArn,
          startDate: execution.startDate.toISOString(),
          ...(execution.stopDate === undefined ? {} : { stopDate: execution.stopDate.toISOString() }),
        })),
        truncated,
      },
    };
  } catch (error) {
    return unexpectedFailure(`list the ${request.workflow} runs`, error, deps.logger);
  }
}

interface Filters {
  readonly status?: ExecutionStatus;
  readonly since?: Date;
  readonly limit: number;
}

function readFilters(query: Readonly<Record<string, string>>): Filters | { problems: string[] } {
  const problems = Object.keys(query)
    .filter((name) => !QUERY_PARAMETERS.includes(name))
    .map((name) => `got the parameter "${name}", expected only ${QUERY_PARAMETERS.join(', ')}`);
  const { status, since, limit } = query;
  if (status !== undefined && !(LISTABLE_STATUSES as readonly string[]).includes(status)) {
    problems.push(`status: got "${status}", expected one of ${LISTABLE_STATUSES.join(', ')}`);
  }
  const sinceDate = since === undefined ? undefined : new Date(since);
  if (sinceDate !== undefined && Number.isNaN(sinceDate.getTime())) {
    problems.push(
      `since: got "${since}", expected an ISO 8601 date such as 2026-11-24 or 2026-11-24T08:00:00Z`,
    );
  }
  const count = limit === undefined ? RUN_LIST_LIMITS.defaultLimit : Number(limit);
  if (!Number.isInteger(count) || count < 1 || count > RUN_LIST_LIMITS.maxLimit) {
    problems.push(`limit: got "${limit}", expected a whole number from 1 to ${RUN_LIST_LIMITS.maxLimit}`);
  }
  if (problems.length > 0) return { problems };
  return {
    ...(status === undefined ? {} : { status: status as ExecutionStatus }),
    ...(sinceDate === undefined ? {} : { since: sinceDate }),
    limit: count,
  };
}
