import { leavesSomething } from './contracts/clean-up-account.js';
import { CleanUpIncompleteError, describeError, ErrorNames } from './contracts/errors.js';
import { KEEP_TAG, RESOURCE_NAME_PREFIX, runToken } from './contracts/names.js';
import type { CleanUpResult } from './contracts/optimization-state.js';
import type { ExecutionDescriber } from './ports.js';
import type { ModelHost } from './ports.js';
import {
  FAILURE_STATUSES,
  type FailureStatus,
  parseExecutionStatusChange,
} from './shared/execution-status-change.js';
import { type CleanUpDeps, cleanUpRun } from './shared/run-clean-up.js';

/**
 * The failure clean-up: an EventBridge rule starts the "Clean up failed run" state machine
 * (workflows/failed-run-clean-up-workflow.ts) with the "Step Functions Execution Status Change"
 * event of every execution of either workflow that ends FAILED, TIMED_OUT or ABORTED; its Task
 * calls this step with that event (after waiting out in-flight step Lambdas), and the run's
 * resources are deleted by the same `cleanUpRun` the workflow's last state uses. An aborted or
 * timed-out execution never reaches that state, and a failed one may have failed in it: this is
 * the layer that still cleans up.
 *
 * The event and its statuses: shared/execution-status-change.ts.
 *
 * What carries the keep tag (`mso:keep=true`) stays, with the config and model it uses: a run that
 * ended (timed out, aborted) during its success-path clean-up has already tagged the endpoint the
 * user asked to keep, and only the tag says so here (this path gets no run summary).
 *
 * A FAILED Standard execution can be redriven (within 14 days): a redrive after this clean-up
 * finds the run's resources gone, and its deploy steps create them again.
 */

export type FailedRunCleanUp =
  | {
      readonly outcome: 'ignored';
      readonly runId: string;
      readonly status: string;
      /** Why nothing was done, when the status alone does not say (a run without a recommendation). */
      readonly reason?: string;
    }
  | {
      readonly outcome: 'cleaned-up';
      readonly runId: string;
      readonly status: FailureStatus;
      readonly result: CleanUpResult;
    };

function isFailureStatus(status: string): status is FailureStatus {
  return (FAILURE_STATUSES as readonly string[]).includes(status);
}

export interface FailedRunCleanUpDeps extends CleanUpDeps {
  /**
   * Reads a FAILED execution's error (DescribeExecution): a run that ended in "No recommendation"
   * has already cleaned up on its success path, so this layer leaves it alone. @default - none:
   * every failed run is cleaned up
   */
  readonly describer?: ExecutionDescriber;
}

/**
 * The error a FAILED execution ended with, or `undefined` when it cannot be read: then the run is
 * cleaned up as before (idempotent, and harmless after a clean-up that already ran).
 */
async function failedWith(executionArn: string, deps: FailedRunCleanUpDeps): Promise<string | undefined> {
  if (deps.describer === undefined) return undefined;
  try {
    return (await deps.describer.describe(executionArn)).error;
  } catch (error) {
    deps.logger.warn('Could not read the execution’s error: cleaning up the run anyway', {
      executionArn,
      error: describeError(error),
    });
    return undefined;
  }
}

/**
 * Cleans up the run of an execution that ended FAILED, TIMED_OUT or ABORTED; any other status is
 * logged and ignored (the rule should not send it, but a broader rule must not delete a live run's
 * resources). Everything that can go goes in one pass; when something is still there (an endpoint
 * still Creating, a delete refused) it throws `CleanUpIncompleteError` with the account, after
 * trying everything, so that the "Clean up failed run" state machine retries it with backoff for
 * about an hour and, when it gives up, ends FAILED with the account as its cause (alarmed).
 */
export async function cleanUpFailedRun(
  event: unknown,
  deps: FailedRunCleanUpDeps,
): Promise<FailedRunCleanUp> {
  const { detail } = parseExecutionStatusChange(event);
  const runId = detail.name;
  if (!isFailureStatus(detail.status)) {
    deps.logger.info('Execution did not fail: nothing to clean up', {
      runId,
      status: detail.status,
      executionArn: detail.executionArn,
    });
    return { outcome: 'ignored', runId, status: detail.status };
  }
  // "No recommendation" ends the execution FAILED after the run's own clean-up ran to its end (its
  // account is in the cause and the run summary): there is nothing for this layer to do, and what
  // that clean-up left (a delete refused) needs the commands it printed, not two hours of retries.
  if (detail.status === 'FAILED') {
    const error = await failedWith(detail.executionArn, deps);
    if (error === ErrorNames.noRecommendation) {
      deps.logger.info('Run ended without a recommendation after its own clean-up: nothing to do', {
        runId,
        executionArn: detail.executionArn,
      });
      return {
        outcome: 'ignored',
        runId,
        status: detail.status,
        reason: `${ErrorNames.noRecommendation}: the run cleaned up on its success path`,
      };
    }
  }
  deps.logger.info('Cleaning up the resources of a failed execution', {
    runId,
    status: detail.status,
    executionArn: detail.executionArn,
    stateMachineArn: detail.stateMachineArn,
  });
  const keepNames = await keepTagged(deps.host, runId, (deps.nowEpochMs ?? Date.now)());
  const result = await cleanUpRun(
    {
      plan: { runId },
      error: { Error: detail.status, Cause: `Execution ${detail.executionArn} ended ${detail.status}` },
      ...(keepNames.length === 0 ? {} : { keepNames }),
    },
    // No loop here to wait out an endpoint still Creating: the state machine's retries are the wait.
    { ...deps, busyWaitMs: 0 },
  );
  if (leavesSomething(result)) {
    throw new CleanUpIncompleteError(`Run ${runId} (${detail.status}): ${result.message}`, {
      runId,
      account: result,
    });
  }
  return { outcome: 'cleaned-up', runId, status: detail.status, result };
}

/** How far past now the keep-tag listing reaches, so that nothing created until now is left out. */
const LIST_EVERYTHING_MARGIN_MS = 60 * 60 * 1000;

/**
 * The run's resources tagged `mso:keep=true`, with the config and models a kept endpoint uses (and
 * the models of a kept config). Listing fails rather than guessing: a clean-up that cannot read
 * the tags deletes nothing, and its caller retries.
 */
async function keepTagged(host: ModelHost, runId: string, nowEpochMs: number): Promise<string[]> {
  const found = await host.listProjectResources({
    namePrefix: `${RESOURCE_NAME_PREFIX}${runToken(runId)}-`,
    createdBeforeEpochMs: nowEpochMs + LIST_EVERYTHING_MARGIN_MS,
  });
  const isKept = (tags: Readonly<Record<string, string>>): boolean => tags[KEEP_TAG.key] === KEEP_TAG.value;
  const kept = new Set<string>();
  for (const endpoint of found.endpoints.filter((e) => isKept(e.tags))) {
    kept.add(endpoint.name);
    if (endpoint.endpointConfigName !== undefined) kept.add(endpoint.endpointConfigName);
    for (const model of endpoint.modelNames) kept.add(model);
  }
  for (const config of found.endpointConfigs) {
    if (isKept(config.tags) || kept.has(config.name)) {
      kept.add(config.name);
      for (const model of config.modelNames) kept.add(model);
    }
  }
  for (const model of found.models.filter((m) => isKept(m.tags))) kept.add(model.name);
  return [...kept];
}
