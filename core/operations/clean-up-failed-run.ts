import {
  commandToFinish,
  leavesSomething,
  CleanUpIncompleteError,
  describeError,
  ErrorNames,
  ranToEndWithoutResult,
  TransientServiceError,
  KEEP_TAG,
  RESOURCE_NAME_PREFIX,
  runToken,
  FAILURE_STATUSES,
  type FailureStatus,
  LIVE_STATUSES,
  parseExecutionStatusChange,
} from '../contracts/index.js';
import type { CleanUpResult } from '../contracts/index.js';
import type { ExecutionDescriber, ExecutionDescription, ModelHost, RunResources } from '../ports/index.js';
import { type CleanUpDeps, cleanUpRun } from '../deployment/index.js';

/**
 * The failure clean-up: an EventBridge rule starts the "Clean up failed run" state machine
 * (workflows/failed-run-clean-up-workflow.ts) with the "Step Functions Execution Status Change"
 * event of every execution of either workflow that ends FAILED, TIMED_OUT or ABORTED; its Task
 * calls this step with that event (after waiting out in-flight step Lambdas), and the run's
 * resources are deleted by the same `cleanUpRun` the workflow's last state uses. An aborted or
 * timed-out execution never reaches that state, and a failed one may have failed in it: this is
 * the layer that still cleans up.
 *
 * The event and its statuses: execution-status-change.ts.
 *
 * The event's status is stale by the time an attempt runs (90 s later, or hours into the retries):
 * a redrive keeps the execution's name, so the run it names may be running again, and its deploy
 * steps creating endpoints this attempt would delete. Every attempt therefore reads the execution
 * (DescribeExecution) before it lists anything, whatever the event's status, and acts on what it
 * reads: RUNNING or PENDING_REDRIVE → nothing is touched (when the redriven run ends FAILED, TIMED_OUT
 * or ABORTED, its own event starts another clean-up); SUCCEEDED → the run's success path cleaned
 * up; FAILED, TIMED_OUT, ABORTED → cleaned up. What is left open is a redrive that starts between
 * the read and the deletes of one attempt (seconds): its deploy step then fails on the missing
 * endpoint, and the run's failure path cleans up again.
 *
 * What carries the keep tag (`mso:keep=true`) stays, with the config and model it uses: a run that
 * ended (timed out, aborted) during its success-path clean-up has already tagged the endpoint the
 * user asked to keep, and only the tag says so here (this path gets no run summary).
 */

export type FailedRunCleanUp =
  | {
      readonly outcome: 'ignored';
      readonly runId: string;
      /** The execution's status as DescribeExecution read it. */
      readonly status: string;
      /** Why nothing was done: a live run, a run that succeeded, one without a recommendation. */
      readonly reason: string;
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
  /** Reads the execution's current status (DescribeExecution) at the start of every attempt. */
  readonly describer: ExecutionDescriber;
}

/**
 * Cleans up the run of an execution that is FAILED, TIMED_OUT or ABORTED when this attempt reads it;
 * a live or succeeded run is logged and left alone. Everything that can go goes in one pass; when
 * something is still there (an endpoint still Creating, a delete refused) it throws
 * `CleanUpIncompleteError` with the account, after trying everything, so that the "Clean up failed
 * run" state machine retries it with backoff for about two hours and, when it gives up, ends FAILED
 * with the account as its cause (alarmed). A status or listing that cannot be read deletes nothing
 * and throws with what was found so far and the commands that find and delete the rest: a
 * `TransientServiceError` when throttled, `CleanUpIncompleteError` otherwise, both retried alike.
 */
export async function cleanUpFailedRun(
  event: unknown,
  deps: FailedRunCleanUpDeps,
): Promise<FailedRunCleanUp> {
  const { detail } = parseExecutionStatusChange(event);
  const runId = detail.name;
  const execution = await readExecution(detail.executionArn, runId, deps);
  const { status } = execution;
  const ignored = ignoreReason(execution);
  if (ignored !== undefined || !isFailureStatus(status)) {
    const reason = ignored ?? `the execution is ${status}`;
    deps.logger.info('Failed-run clean-up left the run alone', {
      runId,
      status,
      eventStatus: detail.status,
      reason,
      executionArn: detail.executionArn,
    });
    return { outcome: 'ignored', runId, status, reason };
  }
  deps.logger.info('Cleaning up the resources of a failed execution', {
    runId,
    status,
    executionArn: detail.executionArn,
    stateMachineArn: detail.stateMachineArn,
  });
  const prefix = runPrefix(runId);
  const now = (deps.nowEpochMs ?? Date.now)();
  let listed: RunResources | undefined;
  let keepNames: string[];
  try {
    listed = await deps.host.listRunResources(runId, prefix);
    keepNames = await keepTagged(deps.host, prefix, now);
  } catch (error) {
    throw listingFailed(error, { runId, status, prefix, listed });
  }
  const result = await cleanUpRun(
    {
      plan: { runId },
      error: { Error: status, Cause: `Execution ${detail.executionArn} ended ${status}` },
      ...(keepNames.length === 0 ? {} : { keepNames }),
    },
    // No loop here to wait out an endpoint still Creating: the state machine's retries are the wait.
    { ...deps, busyWaitMs: 0 },
    listed,
  );
  if (leavesSomething(result)) {
    throw new CleanUpIncompleteError(`Run ${runId} (${status}): ${result.message}`, {
      runId,
      account: result,
    });
  }
  return { outcome: 'cleaned-up', runId, status, result };
}

/**
 * Why the run is left alone, or `undefined` to clean it up. "No recommendation" ends the execution
 * FAILED after the run's own clean-up ran to its end (its account is in the cause and the run
 * summary): what that clean-up left (a delete refused) needs the commands it printed, not two hours
 * of retries.
 */
function ignoreReason(execution: ExecutionDescription): string | undefined {
  if (LIVE_STATUSES.includes(execution.status)) {
    const redrives = execution.redriveCount ?? 0;
    const redriven = redrives === 0 ? '' : `, redriven ${redrives} time${redrives === 1 ? '' : 's'}`;
    return `the run is live (${execution.status}${redriven})`;
  }
  if (execution.status === 'SUCCEEDED') return 'the run succeeded: its own clean-up ran';
  if (execution.status === 'FAILED' && ranToEndWithoutResult(execution.error)) {
    return `${execution.error ?? ''}: the run cleaned up on its success path`;
  }
  return undefined;
}

function runPrefix(runId: string): string {
  return `${RESOURCE_NAME_PREFIX}${runToken(runId)}-`;
}

/** The execution as this attempt finds it; unreadable, nothing is deleted (the run may be live). */
async function readExecution(
  executionArn: string,
  runId: string,
  deps: FailedRunCleanUpDeps,
): Promise<ExecutionDescription> {
  try {
    return await deps.describer.describe(executionArn);
  } catch (error) {
    deps.logger.warn('Could not read the execution: nothing deleted this attempt', {
      runId,
      executionArn,
      error: describeError(error),
    });
    const message =
      `Run ${runId}: could not read execution ${executionArn} (${describeError(error)}), so nothing was ` +
      'deleted: a redriven run may be live. Once aws stepfunctions describe-execution --execution-arn ' +
      `${executionArn} says it has ended, ${commandsForTheRest(runPrefix(runId))}`;
    throw retriedAlike(error, message, { runId, executionArn });
  }
}

/** What the listings had found, with the commands that delete it, and those that find the rest. */
function listingFailed(
  error: unknown,
  context: {
    readonly runId: string;
    readonly status: FailureStatus;
    readonly prefix: string;
    readonly listed: RunResources | undefined;
  },
): Error {
  const found = context.listed === undefined ? [] : foundCommands(context.listed);
  const message =
    `Run ${context.runId} (${context.status}): listing the run's resources failed (${describeError(error)}), ` +
    `so nothing was deleted. Found so far: ${found.length === 0 ? 'nothing' : found.join('; ')}. ` +
    `For the rest, ${commandsForTheRest(context.prefix)}`;
  return retriedAlike(error, message, { runId: context.runId, found: found.length });
}

/** The account's message is a Fail state's cause: a few hundred characters per resource at most. */
const MAX_LISTED = 10;

function foundCommands(listed: RunResources): string[] {
  const commands = [
    ...listed.endpoints.map((name) => `endpoint ${name}: ${commandToFinish('endpoint', name)}`),
    ...listed.endpointConfigs.map(
      (name) => `endpoint-config ${name}: ${commandToFinish('endpoint-config', name)}`,
    ),
    ...listed.models.map((name) => `model ${name}: ${commandToFinish('model', name)}`),
    ...listed.compilationJobs.map(
      (name) => `compilation-job ${name}: ${commandToFinish('compilation-job', name)}`,
    ),
    ...(listed.optimizationJobs ?? []).map(
      (name) => `optimization-job ${name}: ${commandToFinish('optimization-job', name)}`,
    ),
  ];
  const more = commands.length - MAX_LISTED;
  return more > 0 ? [...commands.slice(0, MAX_LISTED), `and ${more} more`] : commands;
}

function commandsForTheRest(prefix: string): string {
  return (
    `list what is left with aws sagemaker list-endpoints --name-contains ${prefix} (and list-endpoint-configs, ` +
    `list-models, list-compilation-jobs with the same filter) and delete each endpoint, then its config, ` +
    `then its model (aws sagemaker delete-endpoint --endpoint-name <name>, delete-endpoint-config, ` +
    `delete-model), except what is tagged ${KEEP_TAG.key}=${KEEP_TAG.value}`
  );
}

/**
 * Throttling stays a `TransientServiceError`; anything else (access denied) becomes
 * `CleanUpIncompleteError`: both are retried on the long schedule, and the last one's message is the
 * cause of "Clean-up gave up".
 */
function retriedAlike(error: unknown, message: string, details: Record<string, unknown>): Error {
  const transient = error instanceof Error && error.name === ErrorNames.transientService;
  return transient
    ? new TransientServiceError(message, details, { cause: error })
    : new CleanUpIncompleteError(message, details, { cause: error });
}

/** How far past now the keep-tag listing reaches, so that nothing created until now is left out. */
const LIST_EVERYTHING_MARGIN_MS = 60 * 60 * 1000;

/**
 * The run's resources tagged `mso:keep=true`, with the config and models a kept endpoint uses (and
 * the models of a kept config). Listing fails rather than guessing: a clean-up that cannot read
 * the tags deletes nothing, and its caller retries.
 */
async function keepTagged(host: ModelHost, prefix: string, nowEpochMs: number): Promise<string[]> {
  const found = await host.listProjectResources({
    namePrefix: prefix,
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
