import { z } from 'zod';
import { describeError, describeIssues } from './contracts/errors.js';
import { KEEP_TAG, PROJECT_TAG_VALUE, RESOURCE_NAME_PREFIX, TAG_KEYS } from './contracts/names.js';
import { toInputIssues } from './contracts/validation.js';
import {
  EndpointStatuses,
  type HostedEndpoint,
  type HostedResource,
  type Logger,
  type ModelHost,
  type RunActivity,
  type ScalingRegistry,
} from './ports.js';

/**
 * The janitor: the second layer of clean-up. On a schedule it deletes the project's endpoints,
 * endpoint configs and models older than a maximum age, whatever left them behind (an aborted
 * execution, a clean-up that failed, a run deployed by hand). Only resources tagged
 * `mso:project=model-serving-optimizer` are touched, nothing a surviving endpoint still uses, and
 * nothing whose run (its `mso:run-id` tag) is still under way in either workflow: age alone cannot
 * tell, since a stack may raise a workflow's timeout past the maximum age.
 */

const MS_PER_HOUR = 3_600_000;

/**
 * Opt-out: a resource tagged `mso:keep=true` is never swept, whatever its age. A run with
 * `cleanupPolicy: keep-recommended` leaves its recommended endpoint for the user; without this tag
 * the janitor would delete it once it is older than the maximum age.
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
  /** Resources younger than this are left alone: a run may still be using them. */
  readonly maxAgeHours: number;
  readonly nowEpochMs: number;
  /** Report what a sweep would delete, and delete nothing. @default false */
  readonly dryRun?: boolean;
}

export interface SweepDeps {
  readonly host: ModelHost;
  readonly scaling: ScalingRegistry;
  /** Says whether a resource's run is still under way: such a resource is never swept. */
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
 * `too-young` (under the maximum age), `run-running` (its run is still under way, whatever its
 * age), `run-status-unknown` (its run's status could not be read: kept on doubt, see `detail`; the
 * sweep then fails visibly so that the next one retries).
 */
export type KeepReason = 'untagged' | 'too-young' | 'keep-tag' | 'run-running' | 'run-status-unknown';

export interface KeptResource {
  readonly kind: SweptKind;
  readonly name: string;
  readonly reason: KeepReason;
  /** The run and where it runs (`run-running`), or why its status is unknown (`run-status-unknown`). */
  readonly detail?: string;
}

/** What one run id's status lookup said, shared by every resource of that run in a sweep. */
type RunState =
  { readonly live: false } | { readonly live: true; readonly detail: string; readonly error?: unknown };

export interface ScalableVariant {
  readonly endpointName: string;
  readonly variantName: string;
}

export interface SweepSummary {
  readonly dryRun: boolean;
  /** Resources created before this instant (ISO 8601) were old enough to delete. */
  readonly cutoff: string;
  /** What was deleted; on a dry run, what a sweep would delete. */
  readonly deleted: SweptNames;
  /** Scalable targets deregistered before their endpoint's deletion (none on a dry run). */
  readonly deregistered: readonly ScalableVariant[];
  readonly skipped: readonly SkippedResource[];
  readonly kept: readonly KeptResource[];
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
  if (!Number.isFinite(request.nowEpochMs)) {
    throw new RangeError(`Janitor nowEpochMs: got ${request.nowEpochMs}, expected epoch milliseconds`);
  }
}

function isProjectTagged(resource: HostedResource): boolean {
  return resource.tags[TAG_KEYS.project] === PROJECT_TAG_VALUE;
}

/** A running record of one sweep's decisions. */
class SweepLog {
  readonly deleted = { endpoints: [] as string[], endpointConfigs: [] as string[], models: [] as string[] };
  readonly deregistered: ScalableVariant[] = [];
  readonly skipped: SkippedResource[] = [];
  readonly kept: KeptResource[] = [];
  readonly failures: unknown[] = [];
  /** One status lookup per run id and sweep, however many resources the run left. */
  private readonly runStates = new Map<string, Promise<RunState>>();

  constructor(
    private readonly cutoffEpochMs: number,
    private readonly deps: SweepDeps,
  ) {}

  /**
   * The resources of a kind that are tagged, old enough and whose run has ended: the ones to
   * delete; records the others as kept. The run is looked up last, for stale resources only.
   */
  async stale<Resource extends HostedResource>(
    kind: SweptKind,
    resources: readonly Resource[],
  ): Promise<Resource[]> {
    const stale: Resource[] = [];
    for (const resource of resources) {
      const reason = this.keepReason(resource);
      if (reason !== undefined) {
        this.kept.push({ kind, name: resource.name, reason });
        continue;
      }
      const runId = resource.tags[TAG_KEYS.runId];
      const run = runId === undefined ? { live: false as const } : await this.runState(runId);
      if (!run.live) {
        stale.push(resource);
      } else if (run.error === undefined) {
        this.kept.push({ kind, name: resource.name, reason: 'run-running', detail: run.detail });
      } else {
        this.kept.push({ kind, name: resource.name, reason: 'run-status-unknown', detail: run.detail });
      }
    }
    return stale;
  }

  private keepReason(resource: HostedResource): KeepReason | undefined {
    if (!isProjectTagged(resource)) return 'untagged';
    if (resource.tags[KEEP_TAG.key] === KEEP_TAG.value) return 'keep-tag';
    if (resource.createdEpochMs >= this.cutoffEpochMs) return 'too-young';
    return undefined;
  }

  private runState(runId: string): Promise<RunState> {
    let state = this.runStates.get(runId);
    if (state === undefined) {
      state = this.lookUpRun(runId);
      this.runStates.set(runId, state);
    }
    return state;
  }

  /** Never deletes on doubt: a status that cannot be read counts as live, and fails the sweep. */
  private async lookUpRun(runId: string): Promise<RunState> {
    try {
      const workflows = await this.deps.runs.liveWorkflows(runId);
      return workflows.length === 0
        ? { live: false }
        : { live: true, detail: `run ${runId} is still running in ${workflows.join(' and ')}` };
    } catch (error) {
      const detail = `the status of run ${runId} could not be read (${describeError(error)}); kept until a sweep can read it`;
      this.deps.logger.warn('Janitor kept a run’s resources: its status could not be read', {
        runId,
        error: describeError(error),
      });
      this.failures.push(error);
      return { live: true, detail, error };
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
 * tried, the failures are thrown together (an `AggregateError`) so the invocation fails visibly,
 * after the summary has been logged.
 */
export async function sweepStaleResources(request: SweepRequest, deps: SweepDeps): Promise<SweepSummary> {
  checkRequest(request);
  const dryRun = request.dryRun ?? false;
  const cutoffEpochMs = request.nowEpochMs - request.maxAgeHours * MS_PER_HOUR;
  const found = await deps.host.listProjectResources({
    namePrefix: RESOURCE_NAME_PREFIX,
    createdBeforeEpochMs: cutoffEpochMs,
  });
  const log = new SweepLog(cutoffEpochMs, deps);

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

  const summary: SweepSummary = {
    dryRun,
    cutoff: new Date(cutoffEpochMs).toISOString(),
    deleted: log.deleted,
    deregistered: log.deregistered,
    skipped: log.skipped,
    kept: log.kept,
  };
  deps.logger.info(dryRun ? 'Janitor dry run: nothing deleted' : 'Janitor sweep finished', { ...summary });
  if (log.failures.length > 0) {
    const problems = [
      ...log.skipped.filter((s) => s.reason === 'failed'),
      ...log.kept.filter((k) => k.reason === 'run-status-unknown'),
    ];
    throw new AggregateError(
      log.failures,
      `Janitor: ${problems.length} stale resource(s) could not be deleted, or kept because their ` +
        'run’s status could not be read (check the janitor’s states:DescribeExecution grant); the next ' +
        `sweep retries: ${problems.map((p) => `${p.kind} ${p.name} (${p.detail ?? ''})`).join('; ')}`,
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
