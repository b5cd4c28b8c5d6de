import { z } from 'zod';
import {
  describeError,
  describeIssues,
  KEEP_TAG,
  PROJECT_TAG_VALUE,
  RESOURCE_NAME_PREFIX,
  TAG_KEYS,
  toInputIssues,
} from '../contracts/index.js';
import {
  EndpointStatuses,
  type HostedEndpoint,
  type HostedResource,
  type Logger,
  type ModelHost,
  type RunActivity,
  type RunState,
  type ScalingRegistry,
} from '../ports/index.js';

/**
 * The janitor: the last layer of clean-up. Every few minutes it deletes the project's endpoints,
 * endpoint configs and models whose run is provably over, whatever left them behind (an aborted
 * execution, a clean-up that failed or gave up, a delete refused). Only resources tagged
 * `mso:project=model-serving-optimizer` are touched, nothing a surviving endpoint still uses, and
 * nothing tagged `mso:keep=true`.
 *
 * When a resource goes, by what Step Functions says of its run (the `mso:run-id` tag names the
 * execution, in either workflow):
 *
 * - the run is RUNNING or PENDING_REDRIVE somewhere: never, whatever its age;
 * - its status cannot be read: never (kept on doubt, and the sweep counts it as a problem);
 * - it has ended (every execution found is over): once the last one has been over for the grace.
 *   The grace outlasts the step Lambdas still running when the execution ended (they may create an
 *   endpoint until their timeout) and leaves the failed-run clean-up its first attempt;
 * - no execution of it is found, or it has no run id: only past the maximum age (longer than any
 *   execution of the watched state machines may run). "Not found" does not prove that a run is
 *   over: DescribeExecution is eventually consistent (Step Functions API reference), so a new
 *   execution may not be visible yet, and the run may be one this janitor does not watch, such as
 *   a run of a second deployment of the stack in the same account and region (another
 *   `stackName`), whose resources carry the same prefix and tags. Our own executions stay visible
 *   for 90 days after they end (Step Functions quotas, closed execution history retention), at
 *   least as long as any maximum age: the age rule is the backstop for resources that are not ours
 *   to judge, and for ours long after their run.
 */

const MS_PER_MINUTE = 60_000;
const MS_PER_HOUR = 60 * MS_PER_MINUTE;

/**
 * Opt-out: a resource tagged `mso:keep=true` is never swept, whatever its age. A run with
 * `cleanupPolicy: keep-recommended` leaves its recommended endpoint for the user; without this tag
 * the janitor would delete it once the run has been over for the grace.
 */
export { KEEP_TAG };

/**
 * SageMaker refuses DeleteEndpoint while an operation is under way; a `Deleting` endpoint is
 * already going. Either way the next sweep finds it settled (or gone), and until then its config and
 * model stay.
 */
const UNSETTLED_STATUSES: ReadonlySet<string> = new Set([
  EndpointStatuses.creating,
  EndpointStatuses.updating,
  EndpointStatuses.systemUpdating,
  EndpointStatuses.rollingBack,
  EndpointStatuses.deleting,
]);

export interface SweepRequest {
  /**
   * A resource whose run cannot be found, or that has no run id, is swept only once older than
   * this: more than the longest execution timeout of the watched state machines.
   */
  readonly maxAgeHours: number;
  /**
   * A resource is swept only once its run's executions have been over for this long, and once it
   * is itself this old (a resource created after its run ended, by a step still in flight).
   */
  readonly graceMinutes: number;
  readonly nowEpochMs: number;
  /** Report what a sweep would delete, and delete nothing. @default false */
  readonly dryRun?: boolean;
}

export interface SweepDeps {
  readonly host: ModelHost;
  readonly scaling: ScalingRegistry;
  /** Says where each resource's run stands: under way (never swept), ended and when, or not found. */
  readonly runs: RunActivity;
  readonly logger: Logger;
}

export type SweptKind = 'endpoint' | 'endpoint-config' | 'model';

export interface SweptNames {
  readonly endpoints: readonly string[];
  readonly endpointConfigs: readonly string[];
  readonly models: readonly string[];
}

/**
 * Why a stale resource was not deleted: `busy` (an endpoint operation under way), `in-use` (a
 * surviving endpoint or config uses it), `already-deleted` (gone before the delete), `failed` (the
 * delete or deregistration failed; see `detail`). The next sweep tries again.
 */
export type SkipReason = 'busy' | 'in-use' | 'already-deleted' | 'failed';

export interface SkippedResource {
  readonly kind: SweptKind;
  readonly name: string;
  readonly reason: SkipReason;
  readonly detail: string;
}

/**
 * Why a resource was kept: `untagged` (not the project's), `keep-tag` (kept on purpose),
 * `too-young` (created within the grace), `run-running` (its run is still under way, whatever its
 * age), `run-ended-recently` (its run ended within the grace), `run-not-found` (no execution of its
 * run was found, or it has no run id, and it is under the maximum age: see the module's doc),
 * `run-status-unknown` (its run's status could not be read: kept on doubt, see `detail`; the sweep
 * then fails visibly so that the next one retries).
 */
export type KeepReason =
  | 'untagged'
  | 'too-young'
  | 'keep-tag'
  | 'run-running'
  | 'run-ended-recently'
  | 'run-not-found'
  | 'run-status-unknown';

export interface KeptResource {
  readonly kind: SweptKind;
  readonly name: string;
  readonly reason: KeepReason;
  /** The run and where it runs or when it ended, or why its status is unknown. */
  readonly detail?: string;
}

/** What one run id's status lookup said, shared by every resource of that run in a sweep. */
type RunLookup =
  | { readonly kind: 'found'; readonly state: RunState }
  | { readonly kind: 'unknown'; readonly detail: string };

export interface ScalableVariant {
  readonly endpointName: string;
  readonly variantName: string;
}

export interface SweepSummary {
  readonly dryRun: boolean;
  /** Resources of ended runs created and ended before this instant (ISO 8601) could go. */
  readonly graceCutoff: string;
  /** Resources whose run was not found, created before this instant (ISO 8601), could go. */
  readonly ageCutoff: string;
  /** What was deleted; on a dry run, what a sweep would delete. */
  readonly deleted: SweptNames;
  /** Scalable targets deregistered before their endpoint's deletion (none on a dry run). */
  readonly deregistered: readonly ScalableVariant[];
  readonly skipped: readonly SkippedResource[];
  readonly kept: readonly KeptResource[];
  /**
   * Stale resources the sweep could not delete (`skipped` as `failed`) or decide on (`kept` as
   * `run-status-unknown`): what the janitor's alarm counts.
   */
  readonly notDeleted: number;
}

/** A sweep that tried everything and could not delete (or decide on) some stale resources. */
export class SweepIncompleteError extends AggregateError {
  constructor(
    errors: readonly unknown[],
    message: string,
    readonly summary: SweepSummary,
  ) {
    super(errors, message);
  }
}

/** What the janitor's metric counts for a sweep that threw `error`. */
export function notDeletedBy(error: unknown): number {
  return error instanceof SweepIncompleteError ? error.summary.notDeleted : 1;
}

/**
 * The janitor's invocation event: EventBridge Scheduler sends its target input (none, or `{}`),
 * and an operator may invoke it with `{ "dryRun": true }` to see what a sweep would delete.
 */
const janitorEventSchema = z.object({ dryRun: z.boolean().optional() }).nullish();

export interface JanitorEvent {
  readonly dryRun?: boolean;
}

export function parseJanitorEvent(event: unknown): JanitorEvent {
  const parsed = janitorEventSchema.safeParse(event, { reportInput: true });
  if (!parsed.success) {
    const issues = describeIssues(toInputIssues(parsed.error));
    throw new TypeError(`Janitor event: ${issues}. Expected no input, {} or { "dryRun": true }`);
  }
  return parsed.data?.dryRun === undefined ? {} : { dryRun: parsed.data.dryRun };
}

function checkRequest(request: SweepRequest): void {
  if (!Number.isFinite(request.maxAgeHours) || request.maxAgeHours <= 0) {
    throw new RangeError(
      `Janitor maxAgeHours: got ${request.maxAgeHours}, expected a number of hours above 0 ` +
        '(JANITOR_MAX_AGE_HOURS on the janitor Lambda)',
    );
  }
  if (!Number.isFinite(request.graceMinutes) || request.graceMinutes <= 0) {
    throw new RangeError(
      `Janitor graceMinutes: got ${request.graceMinutes}, expected a number of minutes above 0 ` +
        '(JANITOR_GRACE_MINUTES on the janitor Lambda)',
    );
  }
  if (!Number.isFinite(request.nowEpochMs)) {
    throw new RangeError(`Janitor nowEpochMs: got ${request.nowEpochMs}, expected epoch milliseconds`);
  }
}

function isProjectTagged(resource: HostedResource): boolean {
  return resource.tags[TAG_KEYS.project] === PROJECT_TAG_VALUE;
}

/** The instants a sweep judges by. */
interface Cutoffs {
  /** A resource created, or a run ended, before this is past the grace. */
  readonly graceEpochMs: number;
  /** A resource created before this is past the maximum age. */
  readonly ageEpochMs: number;
}

/** A running record of one sweep's decisions. */
class SweepLog {
  readonly deleted = { endpoints: [] as string[], endpointConfigs: [] as string[], models: [] as string[] };
  readonly deregistered: ScalableVariant[] = [];
  readonly skipped: SkippedResource[] = [];
  readonly kept: KeptResource[] = [];
  readonly failures: unknown[] = [];
  /** One status lookup per run id and sweep, however many resources the run left. */
  private readonly runLookups = new Map<string, Promise<RunLookup>>();

  constructor(
    private readonly cutoffs: Cutoffs,
    private readonly deps: SweepDeps,
  ) {}

  /**
   * The resources of a kind that may go (see the module's doc): the ones to delete; records the
   * others as kept. The run is looked up last, for resources past the grace only.
   */
  async stale<Resource extends HostedResource>(
    kind: SweptKind,
    resources: readonly Resource[],
  ): Promise<Resource[]> {
    const stale: Resource[] = [];
    for (const resource of resources) {
      const kept = await this.keptBecause(resource);
      if (kept === undefined) stale.push(resource);
      else this.kept.push({ kind, name: resource.name, ...kept });
    }
    return stale;
  }

  private async keptBecause(
    resource: HostedResource,
  ): Promise<{ readonly reason: KeepReason; readonly detail?: string } | undefined> {
    if (!isProjectTagged(resource)) return { reason: 'untagged' };
    if (resource.tags[KEEP_TAG.key] === KEEP_TAG.value) return { reason: 'keep-tag' };
    if (resource.createdEpochMs >= this.cutoffs.graceEpochMs) return { reason: 'too-young' };
    const runId = resource.tags[TAG_KEYS.runId];
    const oldEnough = resource.createdEpochMs < this.cutoffs.ageEpochMs;
    if (runId === undefined) {
      return oldEnough ? undefined : { reason: 'run-not-found', detail: 'no run id: swept by age only' };
    }
    const run = await this.lookUp(runId);
    if (run.kind === 'unknown') return { reason: 'run-status-unknown', detail: run.detail };
    const { liveIn, endedEpochMs } = run.state;
    if (liveIn.length > 0) {
      return { reason: 'run-running', detail: `run ${runId} is still running in ${liveIn.join(' and ')}` };
    }
    if (endedEpochMs !== undefined) {
      if (endedEpochMs < this.cutoffs.graceEpochMs) return undefined;
      return {
        reason: 'run-ended-recently',
        detail: `run ${runId} ended at ${new Date(endedEpochMs).toISOString()}, within the grace`,
      };
    }
    return oldEnough
      ? undefined
      : {
          reason: 'run-not-found',
          detail: `no execution of run ${runId} was found: swept by age only (not yet visible, or not this stack's)`,
        };
  }

  private lookUp(runId: string): Promise<RunLookup> {
    let lookup = this.runLookups.get(runId);
    if (lookup === undefined) {
      lookup = this.readRun(runId);
      this.runLookups.set(runId, lookup);
    }
    return lookup;
  }

  /** Never deletes on doubt: a status that cannot be read counts as live, and fails the sweep. */
  private async readRun(runId: string): Promise<RunLookup> {
    try {
      return { kind: 'found', state: await this.deps.runs.runState(runId) };
    } catch (error) {
      const detail = `the status of run ${runId} could not be read (${describeError(error)}); kept until a sweep can read it`;
      this.deps.logger.warn('Janitor kept a run’s resources: its status could not be read', {
        runId,
        error: describeError(error),
      });
      this.failures.push(error);
      return { kind: 'unknown', detail };
    }
  }

  skip(kind: SweptKind, name: string, reason: SkipReason, detail: string): void {
    this.skipped.push({ kind, name, reason, detail });
  }

  fail(kind: SweptKind, name: string, error: unknown): void {
    this.failures.push(error);
    this.skip(kind, name, 'failed', describeError(error));
  }
}

/**
 * Deletes the project's stale hosting resources: endpoints first (after deregistering their
 * variants from autoscaling), then the endpoint configs and models that no surviving endpoint or
 * config uses. A failure on one resource does not stop the sweep; once every resource has been
 * tried, the failures are thrown together (`SweepIncompleteError`, an `AggregateError` carrying the
 * summary) so the invocation fails visibly, after the summary has been logged.
 */
export async function sweepStaleResources(request: SweepRequest, deps: SweepDeps): Promise<SweepSummary> {
  checkRequest(request);
  const dryRun = request.dryRun ?? false;
  const cutoffs: Cutoffs = {
    graceEpochMs: request.nowEpochMs - request.graceMinutes * MS_PER_MINUTE,
    ageEpochMs: request.nowEpochMs - request.maxAgeHours * MS_PER_HOUR,
  };
  const found = await deps.host.listProjectResources({
    namePrefix: RESOURCE_NAME_PREFIX,
    createdBeforeEpochMs: cutoffs.graceEpochMs,
  });
  const log = new SweepLog(cutoffs, deps);

  const goneEndpoints = new Set<string>();
  for (const endpoint of await log.stale('endpoint', found.endpoints)) {
    if (await removeEndpoint(endpoint, deps, log, dryRun)) goneEndpoints.add(endpoint.name);
  }
  const survivingEndpoints = found.endpoints.filter((endpoint) => !goneEndpoints.has(endpoint.name));

  const configsInUse = new Set(survivingEndpoints.flatMap((e) => e.endpointConfigName ?? []));
  const goneConfigs = new Set<string>();
  for (const config of await log.stale('endpoint-config', found.endpointConfigs)) {
    if (configsInUse.has(config.name)) {
      log.skip('endpoint-config', config.name, 'in-use', 'an endpoint that is not deleted uses it');
      continue;
    }
    const deleted = await removeResource('endpoint-config', config.name, log, dryRun, () =>
      deps.host.deleteEndpointConfig(config.name),
    );
    if (deleted) goneConfigs.add(config.name);
  }
  const survivingConfigs = found.endpointConfigs.filter((config) => !goneConfigs.has(config.name));

  const modelsInUse = new Set([
    ...survivingEndpoints.flatMap((e) => e.modelNames),
    ...survivingConfigs.flatMap((c) => c.modelNames),
  ]);
  for (const model of await log.stale('model', found.models)) {
    if (modelsInUse.has(model.name)) {
      log.skip('model', model.name, 'in-use', 'an endpoint or endpoint config that is not deleted uses it');
      continue;
    }
    await removeResource('model', model.name, log, dryRun, () => deps.host.deleteModel(model.name));
  }

  const problems = [
    ...log.skipped.filter((s) => s.reason === 'failed'),
    ...log.kept.filter((k) => k.reason === 'run-status-unknown'),
  ];
  const summary: SweepSummary = {
    dryRun,
    graceCutoff: new Date(cutoffs.graceEpochMs).toISOString(),
    ageCutoff: new Date(cutoffs.ageEpochMs).toISOString(),
    deleted: log.deleted,
    deregistered: log.deregistered,
    skipped: log.skipped,
    kept: log.kept,
    notDeleted: problems.length,
  };
  deps.logger.info(dryRun ? 'Janitor dry run: nothing deleted' : 'Janitor sweep finished', { ...summary });
  if (log.failures.length > 0) {
    throw new SweepIncompleteError(
      log.failures,
      `Janitor: ${problems.length} stale resource(s) could not be deleted, or kept because their ` +
        'run’s status could not be read (check the janitor’s states:DescribeExecution grant); the next ' +
        `sweep retries: ${problems.map((p) => `${p.kind} ${p.name} (${p.detail ?? ''})`).join('; ')}`,
      summary,
    );
  }
  return summary;
}

/** Returns whether the endpoint is gone (deleted, or would be on a dry run). */
async function removeEndpoint(
  endpoint: HostedEndpoint,
  deps: SweepDeps,
  log: SweepLog,
  dryRun: boolean,
): Promise<boolean> {
  if (UNSETTLED_STATUSES.has(endpoint.status)) {
    log.skip('endpoint', endpoint.name, 'busy', `status ${endpoint.status}; the next sweep retries`);
    return false;
  }
  if (dryRun) {
    log.deleted.endpoints.push(endpoint.name);
    return true;
  }
  try {
    // Deregistered first: SageMaker deregisters the variants on DeleteEndpoint only when it may.
    for (const variantName of endpoint.variantNames) {
      if (await deps.scaling.deregisterEndpointVariant(endpoint.name, variantName)) {
        log.deregistered.push({ endpointName: endpoint.name, variantName });
      }
    }
    if (await deps.host.deleteEndpoint(endpoint.name)) {
      log.deleted.endpoints.push(endpoint.name);
    } else {
      log.skip('endpoint', endpoint.name, 'already-deleted', 'it was gone before the delete');
    }
    return true;
  } catch (error) {
    deps.logger.warn('Janitor could not delete an endpoint', {
      endpointName: endpoint.name,
      error: describeError(error),
    });
    log.fail('endpoint', endpoint.name, error);
    return false;
  }
}

/** Deletes an endpoint config or model; returns whether it is gone (or would be, on a dry run). */
async function removeResource(
  kind: 'endpoint-config' | 'model',
  name: string,
  log: SweepLog,
  dryRun: boolean,
  remove: () => Promise<boolean>,
): Promise<boolean> {
  const list = kind === 'model' ? log.deleted.models : log.deleted.endpointConfigs;
  if (dryRun) {
    list.push(name);
    return true;
  }
  try {
    if (await remove()) list.push(name);
    else log.skip(kind, name, 'already-deleted', 'it was gone before the delete');
    return true;
  } catch (error) {
    log.fail(kind, name, error);
    return false;
  }
}
