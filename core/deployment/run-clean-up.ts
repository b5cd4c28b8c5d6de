import {
  CLEAN_UP_WAIT,
  type CleanUpAccount,
  type CleanUpResourceKind,
  CleanUpStatuses,
  commandToFinish,
  type LeftResource,
  withCleanUpAccount,
  describeError,
  nextPollSeconds,
  KEEP_TAG,
  RESOURCE_NAME_PREFIX,
  runToken,
  VARIANT_NAME,
} from '../contracts/index.js';
import type { CleanUpEvent, CleanUpResult } from '../contracts/index.js';
import {
  EndpointStatuses,
  type Logger,
  type ModelCompiler,
  type ModelHost,
  type ModelOptimizer,
  type RunResources,
  type ScalingRegistry,
} from '../ports/index.js';
import { BUSY_ENDPOINT_STATUSES } from './endpoint-deployment.js';

/**
 * The run clean-up every path ends with: the optimization's "Clean up run resources" and "Clean up
 * after failure" (core/steps/optimization/clean-up.ts), the async workflow's
 * (core/steps/async/clean-up-async-run.ts) and the failed-run Lambda
 * (core/operations/clean-up-failed-run.ts) all delete a run's resources with it.
 */

export interface CleanUpDeps {
  readonly host: ModelHost;
  /** Stops the run's compilation jobs; the async workflow compiles nothing and passes none. */
  readonly compiler?: ModelCompiler;
  /** Stops the run's optimization jobs still running; absent, none are looked for. */
  readonly optimizer?: ModelOptimizer;
  /**
   * Deregisters an endpoint's autoscaling before it is deleted (async endpoints scale to zero; the
   * optimization's ramp endpoint carries the recommended policy). A variant never registered is
   * not an error, so every endpoint goes through it.
   */
  readonly scaling?: ScalingRegistry;
  readonly logger: Logger;
  /** @default Date.now */
  readonly nowEpochMs?: () => number;
  /**
   * How long rounds of clean-up wait for endpoints still changing before leaving them (with their
   * command) in the account. The failed-run Lambda passes 0: it has no loop, its retries are the wait.
   * @default BUSY_ENDPOINT_WAIT_MS (45 minutes)
   */
  readonly busyWaitMs?: number;
}

/** How long and how often clean-up waits out busy endpoints (one schedule, read by the history budget). */
export const BUSY_ENDPOINT_WAIT_MS = CLEAN_UP_WAIT.deadlineSeconds * 1000;
const FIRST_WAIT_SECONDS = CLEAN_UP_WAIT.firstWaitSeconds;
const MAX_WAIT_SECONDS = CLEAN_UP_WAIT.maxWaitSeconds;
/** The account's message is a Fail state's cause and an SNS line: a few hundred characters per resource at most. */
const MAX_LISTED = 10;

/**
 * A candidate's three resources share their suffix (`resourceName`: `…-ep-<id>`, `…-ec-<id>`,
 * `…-m-<id>`): the config and model of an endpoint that cannot go yet. A name shortened with a
 * hash matches nothing, so its config and model are deleted as any other (they bill nothing).
 */
function siblingsOf(endpointName: string): readonly string[] {
  const at = endpointName.lastIndexOf('-ep-');
  if (at === -1) return [];
  const [head, suffix] = [endpointName.slice(0, at), endpointName.slice(at + '-ep-'.length)];
  return [`${head}-ec-${suffix}`, `${head}-m-${suffix}`];
}

/** One round's findings, merged into the account. */
class Round {
  readonly deleted = {
    endpoints: [] as string[],
    endpointConfigs: [] as string[],
    models: [] as string[],
    stoppedCompilationJobs: [] as string[],
    stoppedOptimizationJobs: [] as string[],
    deregisteredScaling: [] as string[],
  };
  readonly left: LeftResource[] = [];
  readonly waitingFor: string[] = [];

  leave(kind: CleanUpResourceKind, name: string, reason: string): void {
    this.left.push({ kind, name, reason, command: commandToFinish(kind, name) });
  }

  /** Runs one deletion; a failure is recorded with its reason instead of ending the clean-up. */
  async attempt(kind: CleanUpResourceKind, name: string, action: () => Promise<boolean>): Promise<boolean> {
    try {
      return await action();
    } catch (error) {
      this.leave(kind, name, describeError(error));
      return false;
    }
  }
}

/**
 * States "Clean up run resources" (success) and "Clean up after failure" of both workflows, and
 * the failed-run Lambda: finds everything the run created by its name prefix and run-id tag and deletes what is
 * not kept, in dependency order (autoscaling, with its alarm → endpoint → endpoint config → model →
 * compilation jobs stopped). No error ends it early: each failed deletion is recorded with its
 * reason and the command that finishes it, and the rest goes on. Endpoints still Creating or
 * Updating (SageMaker refuses to delete them) are awaited across rounds: the account says WAITING
 * and how long to wait, the workflow waits and calls again, and past the deadline they are left in
 * the account. Their config and model are kept while they live: SageMaker's DeleteEndpointConfig
 * reference says not to delete the config of an endpoint that is live, or being created or updated.
 *
 * `listed` is the round's listing when the caller has just made it (the failed-run clean-up lists
 * first, to say what it found when a later call fails); absent, the round lists the run itself.
 */
export async function cleanUpRun(
  event: CleanUpEvent,
  deps: CleanUpDeps,
  listed?: RunResources,
): Promise<CleanUpResult> {
  const { runId } = event.plan;
  const now = (deps.nowEpochMs ?? Date.now)();
  const previous = event.cleanUp ?? event.summary?.cleanUp;
  const deadlineEpochMs = previous?.deadlineEpochMs ?? now + (deps.busyWaitMs ?? BUSY_ENDPOINT_WAIT_MS);
  const mayWait = now < deadlineEpochMs;
  const prefix = `${RESOURCE_NAME_PREFIX}${runToken(runId)}-`;
  const found = listed ?? (await deps.host.listRunResources(runId, prefix));
  const round = new Round();

  const keep = event.summary?.keep;
  // The janitor sweeps old project resources: the keep tag tells it this one was kept on purpose.
  if (keep !== undefined) {
    await round.attempt('keep-tag', keep.endpointName, async () => {
      await deps.host.addTags(keep, { [KEEP_TAG.key]: KEEP_TAG.value });
      return true;
    });
  }
  const kept = new Set<string>([
    ...(keep === undefined ? [] : [keep.endpointName, keep.endpointConfigName, keep.modelName]),
    ...(event.keepNames ?? []),
  ]);
  const isDeletable = (name: string): boolean => !kept.has(name);

  const stillThere = new Set<string>();
  for (const endpointName of found.endpoints.filter(isDeletable)) {
    await deleteEndpoint(endpointName, { deps, round, mayWait });
    const left = round.left.some((r) => r.kind === 'endpoint' && r.name === endpointName);
    if (left || round.waitingFor.includes(endpointName)) {
      stillThere.add(endpointName);
    }
  }
  const heldBy = new Map<string, string>();
  for (const endpointName of stillThere) {
    for (const sibling of siblingsOf(endpointName)) heldBy.set(sibling, endpointName);
  }
  const holds = (kind: CleanUpResourceKind, name: string): boolean => {
    const endpointName = heldBy.get(name);
    if (endpointName === undefined) return false;
    // A busy endpoint's config and model wait with it; a left endpoint's are left with it.
    if (!round.waitingFor.includes(endpointName)) {
      round.leave(kind, name, `kept for endpoint ${endpointName}, which is still there: delete it first`);
    }
    return true;
  };
  for (const name of found.endpointConfigs.filter(isDeletable)) {
    if (holds('endpoint-config', name)) continue;
    if (await round.attempt('endpoint-config', name, () => deps.host.deleteEndpointConfig(name))) {
      round.deleted.endpointConfigs.push(name);
    }
  }
  for (const name of found.models.filter(isDeletable)) {
    if (holds('model', name)) continue;
    if (await round.attempt('model', name, () => deps.host.deleteModel(name)))
      round.deleted.models.push(name);
  }
  const { compiler, optimizer } = deps;
  if (compiler !== undefined) {
    await stopRunningJobs(
      found.compilationJobs,
      {
        kind: 'compilation-job',
        describe: (name) => compiler.describeCompilationJob(name),
        stop: (name) => compiler.stopCompilationJob(name),
        stopped: round.deleted.stoppedCompilationJobs,
      },
      round,
    );
  }
  if (optimizer !== undefined) {
    await stopRunningJobs(
      found.optimizationJobs ?? [],
      {
        kind: 'optimization-job',
        describe: (name) => optimizer.describeOptimizationJob(name),
        stop: (name) => optimizer.stopOptimizationJob(name),
        stopped: round.deleted.stoppedOptimizationJobs,
      },
      round,
    );
  }

  const counted = toAccount({ previous, round, kept: [...kept], now, deadlineEpochMs });
  const account =
    event.error === undefined
      ? counted
      : { ...counted, runError: withCleanUpAccount(event.error, counted.message) };
  const details = {
    runId,
    status: account.status,
    round: account.round,
    deleted: {
      endpoints: round.deleted.endpoints.length,
      endpointConfigs: round.deleted.endpointConfigs.length,
      models: round.deleted.models.length,
      stoppedCompilationJobs: round.deleted.stoppedCompilationJobs.length,
    },
    waitingFor: account.waitingFor,
    left: account.left.map(({ kind, name, reason }) => ({ kind, name, reason })),
    afterError: event.error?.Error,
  };
  if (account.left.length > 0) deps.logger.warn('Run clean-up round left resources', details);
  else deps.logger.info('Run clean-up round', details);
  return account;
}

/** Autoscaling (and its alarm) first, so it cannot act on an endpoint being deleted; then the endpoint. */
async function deleteEndpoint(
  endpointName: string,
  context: { readonly deps: CleanUpDeps; readonly round: Round; readonly mayWait: boolean },
): Promise<void> {
  const { deps, round } = context;
  const { scaling } = deps;
  if (scaling !== undefined) {
    const deregistered = await round.attempt('scalable-target', endpointName, () =>
      scaling.deregisterEndpointVariant(endpointName, VARIANT_NAME),
    );
    if (deregistered)
      round.deleted.deregisteredScaling.push(`endpoint/${endpointName}/variant/${VARIANT_NAME}`);
  }
  let status: string | undefined;
  try {
    const endpoint = await deps.host.describeEndpoint(endpointName);
    if (endpoint === undefined || endpoint.status === EndpointStatuses.deleting) return;
    status = endpoint.status;
  } catch (error) {
    // Unreadable: DeleteEndpoint says for itself whether it can go.
    deps.logger.warn('Endpoint status unreadable: deleting it anyway', {
      endpointName,
      error: describeError(error),
    });
  }
  if (status !== undefined && BUSY_ENDPOINT_STATUSES.includes(status)) {
    if (context.mayWait) round.waitingFor.push(endpointName);
    else {
      round.leave(
        'endpoint',
        endpointName,
        `still ${status} when clean-up stopped waiting; SageMaker deletes it only once it is InService or Failed`,
      );
    }
    return;
  }
  if (await round.attempt('endpoint', endpointName, () => deps.host.deleteEndpoint(endpointName))) {
    round.deleted.endpoints.push(endpointName);
  }
}

/** A run's job of one kind, as clean-up sees it: its status, and how to stop it. */
interface StoppableJobs {
  readonly kind: 'compilation-job' | 'optimization-job';
  readonly describe: (jobName: string) => Promise<{ readonly status: string } | undefined>;
  readonly stop: (jobName: string) => Promise<void>;
  /** The round's list of the jobs it stopped. */
  readonly stopped: string[];
}

/**
 * Jobs still running are stopped: Neo compilation jobs bill while they run, optimization jobs bill
 * the instance they run on. Ended ones need nothing.
 */
async function stopRunningJobs(
  jobNames: readonly string[],
  jobs: StoppableJobs,
  round: Round,
): Promise<void> {
  for (const jobName of jobNames) {
    await round.attempt(jobs.kind, jobName, async () => {
      const job = await jobs.describe(jobName);
      if (job === undefined || !['INPROGRESS', 'STARTING'].includes(job.status)) return false;
      await jobs.stop(jobName);
      jobs.stopped.push(jobName);
      return true;
    });
  }
}

function union(before: readonly string[] | undefined, now: readonly string[]): string[] {
  return [...new Set([...(before ?? []), ...now])];
}

function toAccount(context: {
  readonly previous: CleanUpAccount | undefined;
  readonly round: Round;
  readonly kept: readonly string[];
  readonly now: number;
  readonly deadlineEpochMs: number;
}): CleanUpAccount {
  const { previous, round } = context;
  const roundNumber = (previous?.round ?? 0) + 1;
  const status =
    round.waitingFor.length > 0
      ? CleanUpStatuses.waiting
      : round.left.length > 0
        ? CleanUpStatuses.incomplete
        : CleanUpStatuses.complete;
  const waitSeconds =
    status === CleanUpStatuses.waiting
      ? nextPollSeconds(previous?.waitSeconds ?? 0, {
          pollSeconds: FIRST_WAIT_SECONDS,
          maxPollSeconds: MAX_WAIT_SECONDS,
        })
      : 0;
  const fields = {
    status,
    endpoints: union(previous?.endpoints, round.deleted.endpoints),
    endpointConfigs: union(previous?.endpointConfigs, round.deleted.endpointConfigs),
    models: union(previous?.models, round.deleted.models),
    stoppedCompilationJobs: union(previous?.stoppedCompilationJobs, round.deleted.stoppedCompilationJobs),
    ...optimizationJobsField(union(previous?.stoppedOptimizationJobs, round.deleted.stoppedOptimizationJobs)),
    deregisteredScaling: union(previous?.deregisteredScaling, round.deleted.deregisteredScaling),
    kept: context.kept,
    left: round.left,
    waitingFor: round.waitingFor,
    waitSeconds,
    round: roundNumber,
    deadlineEpochMs: context.deadlineEpochMs,
  };
  return { ...fields, message: describeAccount(fields) };
}

/** Only when some were stopped: the accounts of runs without optimization jobs stay as they were. */
function optimizationJobsField(names: string[]): { stoppedOptimizationJobs?: string[] } {
  return names.length === 0 ? {} : { stoppedOptimizationJobs: names };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The account in one paragraph: counts, what is kept, what is awaited, and each resource left with its command. */
export function describeAccount(account: Omit<CleanUpAccount, 'message'>): string {
  const parts = [
    `deleted ${plural(account.endpoints.length, 'endpoint')}, ${plural(account.endpointConfigs.length, 'endpoint config')}, ` +
      plural(account.models.length, 'model') +
      (account.stoppedCompilationJobs.length > 0
        ? `, stopped ${plural(account.stoppedCompilationJobs.length, 'compilation job')}`
        : '') +
      ((account.stoppedOptimizationJobs?.length ?? 0) > 0
        ? `, stopped ${plural(account.stoppedOptimizationJobs?.length ?? 0, 'optimization job')}`
        : ''),
  ];
  if (account.kept.length > 0) parts.push(`kept ${account.kept.join(', ')} as asked`);
  if (account.waitingFor.length > 0) {
    parts.push(
      `waiting ${account.waitSeconds} s for ${account.waitingFor.join(', ')} to finish changing before deleting ` +
        `(until ${new Date(account.deadlineEpochMs).toISOString()})`,
    );
  }
  if (account.left.length === 0) {
    return `Clean-up ${parts.join('; ')}${account.waitingFor.length === 0 ? '; nothing left' : ''}.`;
  }
  const listed = account.left
    .slice(0, MAX_LISTED)
    .map((resource) => `${resource.kind} ${resource.name} (${resource.reason}): ${resource.command}`);
  const more = account.left.length - listed.length;
  return (
    `Clean-up ${parts.join('; ')}; LEFT ${plural(account.left.length, 'resource')}, finish by hand: ` +
    `${listed.join('; ')}${more > 0 ? `; and ${more} more (see the clean-up step's output)` : ''}.`
  );
}
