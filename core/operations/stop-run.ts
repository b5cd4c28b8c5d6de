import type { Logger } from '../ports/index.js';
import type { ExecutionReader, RunStopper } from '../run-status/index.js';
import {
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  ExecutionStatuses,
  type StoppedRun,
} from '../contracts/index.js';
import { isReply, type RunRouteRequest, runNotFound, runOf, unexpectedFailure } from '../run-status/index.js';

/**
 * `POST /runs/{id}/stop` and `POST /async-runs/{id}/stop`: stops a running run. The execution ends
 * ABORTED; what it created is deleted by the failed-run clean-up, which the end of every execution
 * triggers (infra/constructs/safety-net.ts). A run that has already ended is refused with its
 * status (409), not stopped again.
 */

export interface StopRunDeps {
  readonly executions: Pick<ExecutionReader, 'describe'>;
  readonly stopper: RunStopper;
  readonly logger: Logger;
}

/** The error an execution stopped through the API ends with, so its status says why it ended. */
export const RUN_STOPPED_ERROR = 'RunStopped';

export async function stopRun(request: RunRouteRequest, deps: StopRunDeps): Promise<ApiReply<StoppedRun>> {
  const run = runOf(request);
  if (isReply(run)) return run;
  try {
    const execution = await deps.executions.describe(run);
    if (execution === undefined) return runNotFound(run);
    if (execution.status !== ExecutionStatuses.running) {
      return apiFailure(
        409,
        ApiErrorCodes.runNotRunning,
        `Run "${run.runId}" is not running: it is ${execution.status}` +
          `${execution.stopDate === undefined ? '' : ` since ${execution.stopDate.toISOString()}`}, ` +
          'expected RUNNING. Nothing was stopped.',
      );
    }
    const cause = `Stopped through the run API by ${request.caller ?? 'an unknown caller'}`;
    const { stopDate } = await deps.stopper.stop(run, { error: RUN_STOPPED_ERROR, cause });
    deps.logger.info('Run stopped', { ...run, caller: request.caller });
    return {
      statusCode: 200,
      body: {
        runId: run.runId,
        workflow: run.workflow,
        executionArn: execution.executionArn,
        stopDate: stopDate.toISOString(),
      },
    };
  } catch (error) {
    return unexpectedFailure(`stop run "${run.runId}"`, error, deps.logger);
  }
}
