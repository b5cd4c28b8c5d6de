import type { Logger } from '../ports/index.js';
import type { RunStarter } from '../run-status/index.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  RUN_RESOURCES,
  type StartedRun,
} from '../contracts/index.js';
import {
  type ParsedEvent,
  RUN_ROUTES,
  checkRunRequest,
  parseRunRequestEvent,
  type RunRequest,
} from '../run-status/index.js';

/**
 * `POST /runs` and `POST /async-runs`: the body is checked with the workflow's own run-input
 * schema and the one input-error formatter, exactly as the workflow's first state checks it, so a
 * refusal lists the same issues (field, given, expected) whether it comes from the API, the CLIs
 * or the first state. Only then is the execution started; nothing is started for a refused body.
 *
 * So are the first state's rules that need only the input and the region (planning/input-rules.ts:
 * Neo's targets, serving images, rounds and ramp within a load worker invocation; the image of an
 * async run's endpoint). What needs AWS
 * reads (objects exist, quotas, the budget once the payload's size is known) stays in the first
 * state: a run refused there ends FAILED with the same issue list in its cause.
 */

/** The request as start-run reads it (shared with plan-run: core/run-status/run-request.ts). */
export type StartRunRequest = RunRequest;

export interface StartRunDeps {
  readonly starter: RunStarter;
  readonly logger: Logger;
  /**
   * The region the workflow runs in (the API's): an input is checked against its first state's
   * rules for it (Neo's targets, serving images). @default not checked
   */
  readonly servingRegion?: string;
}

export type StartRunReply = ApiReply<StartedRun>;

/**
 * `/runs` → optimization, `/async-runs` → async inference; the rest of the request as the core reads
 * it, or the 400 answer to an event API Gateway would not send.
 */
export function parseStartRunEvent(event: unknown): ParsedEvent<StartRunRequest> {
  return parseRunRequestEvent(event, RUN_ROUTES.start);
}

export async function startRun(request: StartRunRequest, deps: StartRunDeps): Promise<StartRunReply> {
  const checked = checkRunRequest(
    request,
    deps.servingRegion === undefined ? {} : { servingRegion: deps.servingRegion },
  );
  if ('refusal' in checked) return checked.refusal;
  const { runId, input } = checked;
  const run = { workflow: request.workflow, runId };
  const outcome = await deps.starter.start({ workflow: request.workflow, name: runId, input });
  switch (outcome.status) {
    case 'started':
      deps.logger.info('Run started', { ...run, executionArn: outcome.executionArn });
      return {
        statusCode: 200,
        body: {
          runId,
          executionArn: outcome.executionArn,
          startDate: outcome.startDate.getTime() / 1000,
          statusUrl: `${request.stageUrl}/${RUN_RESOURCES[request.workflow]}/${runId}`,
        },
      };
    case 'name-taken':
      return apiFailure(
        409,
        ApiErrorCodes.runAlreadyExists,
        `A run with the id "${runId}" already exists: Step Functions accepts an execution name again only ` +
          'while that run is RUNNING with the same input (it then returns the same run), and refuses it for ' +
          `90 days otherwise. Get its status, or start with another runId. Step Functions said: ${outcome.message}`,
      );
    case 'throttled':
      return apiFailure(
        429,
        ApiErrorCodes.throttled,
        `Too many runs at once: ${outcome.message}. Retry later with the same runId: a retry cannot start a second run.`,
      );
    case 'refused':
      deps.logger.error('Step Functions refused to start a run', { ...run, error: outcome.message });
      return apiFailure(
        500,
        ApiErrorCodes.startRefused,
        `Step Functions refused StartExecution (${outcome.error}): ${outcome.message}. The start-run Lambda's ` +
          'role or the state machine it starts needs fixing (infra/constructs/run-api.ts).',
      );
    case 'unavailable':
      deps.logger.warn('Step Functions unavailable while starting a run', { ...run, error: outcome.message });
      return apiFailure(
        503,
        ApiErrorCodes.serviceUnavailable,
        `Step Functions could not start the run now: ${outcome.message}. Retry with the same runId: a retry ` +
          'cannot start a second run.',
      );
  }
}
