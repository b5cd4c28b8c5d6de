import type { Logger } from '../ports/index.js';
import type { HistoryEventLine, RunEventReader } from '../run-status/index.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  RUN_EVENT_LIMITS,
  type RunEvent,
  type RunEvents,
} from '../contracts/index.js';
import { isReply, type RunRouteRequest, runNotFound, runOf, unexpectedFailure } from '../run-status/index.js';

/**
 * `GET /runs/{id}/events?limit=`: a run's progress as its execution history records it (Step
 * Functions keeps every state entered and exited, every task's failure and every Map iteration),
 * the newest `limit` events in the order they happened. Inputs and outputs are never read: the
 * adapter asks for the history without execution data.
 */

export interface RunEventsDeps {
  readonly events: RunEventReader;
  readonly logger: Logger;
}

export async function runEvents(request: RunRouteRequest, deps: RunEventsDeps): Promise<ApiReply<RunEvents>> {
  const run = runOf(request);
  if (isReply(run)) return run;
  const unknown = Object.keys(request.query).filter((name) => name !== 'limit');
  const limit =
    request.query.limit === undefined ? RUN_EVENT_LIMITS.defaultLimit : Number(request.query.limit);
  if (unknown.length > 0 || !Number.isInteger(limit) || limit < 1 || limit > RUN_EVENT_LIMITS.maxLimit) {
    return apiFailure(
      400,
      ApiErrorCodes.invalidRequest,
      `Invalid query: got ${JSON.stringify(request.query)}, expected at most "limit", a whole number from 1 ` +
        `to ${RUN_EVENT_LIMITS.maxLimit}`,
    );
  }
  try {
    const newest = await deps.events.newest(run, limit);
    if (newest === undefined) return runNotFound(run);
    return {
      statusCode: 200,
      body: {
        runId: run.runId,
        workflow: run.workflow,
        events: [...newest.events].reverse().map(toRunEvent),
        truncated: newest.truncated,
      },
    };
  } catch (error) {
    return unexpectedFailure(`read the events of run "${run.runId}"`, error, deps.logger);
  }
}

function toRunEvent(event: HistoryEventLine): RunEvent {
  return {
    id: event.id,
    timestamp: event.timestamp.toISOString(),
    type: event.type,
    ...(event.state === undefined ? {} : { state: event.state }),
    ...(event.error === undefined ? {} : { error: event.error }),
    ...(event.cause === undefined ? {} : { cause: event.cause }),
  };
}
