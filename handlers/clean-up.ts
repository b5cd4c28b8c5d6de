import { ResourceBusyError } from './contracts/errors.js';
import { KEEP_TAG, RESOURCE_NAME_PREFIX, runToken } from './contracts/names.js';
import { VARIANT_NAME } from './deploy-candidate.js';
import {
  EndpointStatuses,
  type Logger,
  type ModelCompiler,
  type ModelHost,
  type ScalingRegistry,
} from './ports.js';
import type { RunSummary } from './recommend.js';
import type { PlannedCandidate, RunPlan } from './validate-and-plan.js';

/** Statuses in which SageMaker refuses DeleteEndpoint until the operation under way settles. */
const BUSY_STATUSES: readonly string[] = [
  EndpointStatuses.creating,
  EndpointStatuses.updating,
  EndpointStatuses.systemUpdating,
  EndpointStatuses.rollingBack,
];

export interface CleanUpDeps {
  readonly host: ModelHost;
  /** Stops the run's compilation jobs; the async workflow compiles nothing and passes none. */
  readonly compiler?: ModelCompiler;
  /**
   * Deregisters an endpoint's autoscaling before it is deleted (async endpoints scale to zero).
   * Optimization candidates are never autoscaled and pass none.
   */
  readonly scaling?: ScalingRegistry;
  readonly logger: Logger;
}

export interface DeletedResources {
  readonly endpoints: readonly string[];
  readonly endpointConfigs: readonly string[];
  readonly models: readonly string[];
  readonly stoppedCompilationJobs: readonly string[];
}

/** Deletes an endpoint unless it is still changing, in which case the workflow retries later. */
async function deleteEndpointWhenSettled(host: ModelHost, endpointName: string): Promise<boolean> {
  const endpoint = await host.describeEndpoint(endpointName);
  if (endpoint === undefined || endpoint.status === EndpointStatuses.deleting) return false;
  if (BUSY_STATUSES.includes(endpoint.status)) {
    throw new ResourceBusyError(
      `Endpoint ${endpointName} is ${endpoint.status}; it can be deleted once that ends`,
      {
        endpointName,
        status: endpoint.status,
      },
    );
  }
  return host.deleteEndpoint(endpointName);
}

export interface DeleteCandidateEvent {
  readonly plan: Pick<RunPlan, 'cleanupPolicy'>;
  readonly candidate: PlannedCandidate;
}

/**
 * State "Delete candidate endpoint": as soon as a candidate's test ends (or fails), its endpoint,
 * endpoint config and model go, so a run pays for one candidate at a time per Map slot.
 */
export async function deleteCandidate(
  event: DeleteCandidateEvent,
  deps: CleanUpDeps,
): Promise<DeletedResources> {
  const { candidate } = event;
  // With `keep-recommended`, endpoints live until the ranking; run clean-up then deletes the rest.
  if (candidate.kind === 'existing' || event.plan.cleanupPolicy === 'keep-recommended') {
    return { endpoints: [], endpointConfigs: [], models: [], stoppedCompilationJobs: [] };
  }
  const endpointDeleted = await deleteEndpointWhenSettled(deps.host, candidate.endpointName);
  const configDeleted = await deps.host.deleteEndpointConfig(candidate.endpointConfigName);
  const modelDeleted = await deps.host.deleteModel(candidate.modelName);
  deps.logger.info('Candidate resources deleted', { candidateId: candidate.id, endpointDeleted });
  return {
    endpoints: endpointDeleted ? [candidate.endpointName] : [],
    endpointConfigs: configDeleted ? [candidate.endpointConfigName] : [],
    models: modelDeleted ? [candidate.modelName] : [],
    stoppedCompilationJobs: [],
  };
}

export interface CleanUpEvent {
  readonly plan: Pick<RunPlan, 'runId'>;
  /** On success: the recommendation's summary, whose `keep` names the endpoint to keep, if any. */
  readonly summary?: Pick<RunSummary, 'keep'>;
  /** On failure: why the run is cleaning up early (a Catch's `{ Error, Cause }`). */
  readonly error?: { readonly Error?: string; readonly Cause?: string };
}

export interface CleanUpResult extends DeletedResources {
  readonly kept: readonly string[];
}

/**
 * State "Clean up run resources", on success and on every failure path: finds everything the run
 * created by its name prefix and run-id tag and deletes it (except a kept recommendation), so no
 * path leaves an endpoint, endpoint config, model or running compilation job behind.
 */
export async function cleanUpRun(event: CleanUpEvent, deps: CleanUpDeps): Promise<CleanUpResult> {
  const { runId } = event.plan;
  const prefix = `${RESOURCE_NAME_PREFIX}${runToken(runId)}-`;
  const found = await deps.host.listRunResources(runId, prefix);
  const keep = event.summary?.keep;
  // The janitor sweeps old project resources: the keep tag tells it this one was kept on purpose.
  if (keep !== undefined) await deps.host.addTags(keep, { [KEEP_TAG.key]: KEEP_TAG.value });
  const kept = new Set<string>(
    keep === undefined ? [] : [keep.endpointName, keep.endpointConfigName, keep.modelName],
  );
  const isDeletable = (name: string): boolean => !kept.has(name);

  const stoppedCompilationJobs: string[] = [];
  for (const jobName of deps.compiler === undefined ? [] : found.compilationJobs) {
    const job = await deps.compiler?.describeCompilationJob(jobName);
    if (job !== undefined && ['INPROGRESS', 'STARTING'].includes(job.status)) {
      await deps.compiler?.stopCompilationJob(jobName);
      stoppedCompilationJobs.push(jobName);
    }
  }
  const endpoints: string[] = [];
  const busy: string[] = [];
  for (const endpointName of found.endpoints.filter(isDeletable)) {
    try {
      // Deregistered first, so Application Auto Scaling cannot act on an endpoint being deleted.
      await deps.scaling?.deregisterEndpointVariant(endpointName, VARIANT_NAME);
      if (await deleteEndpointWhenSettled(deps.host, endpointName)) endpoints.push(endpointName);
    } catch (error) {
      if (!(error instanceof ResourceBusyError)) throw error;
      busy.push(endpointName);
    }
  }
  // A busy endpoint's config and model must outlive it: stop here, and the workflow's retry of this
  // (idempotent) step deletes everything once the endpoint has settled.
  if (busy.length > 0) {
    throw new ResourceBusyError(`Endpoints still changing, to delete on retry: ${busy.join(', ')}`, { busy });
  }
  const endpointConfigs: string[] = [];
  for (const name of found.endpointConfigs.filter(isDeletable)) {
    if (await deps.host.deleteEndpointConfig(name)) endpointConfigs.push(name);
  }
  const models: string[] = [];
  for (const name of found.models.filter(isDeletable)) {
    if (await deps.host.deleteModel(name)) models.push(name);
  }
  deps.logger.info('Run resources cleaned up', {
    runId,
    endpoints: endpoints.length,
    endpointConfigs: endpointConfigs.length,
    models: models.length,
    stoppedCompilationJobs: stoppedCompilationJobs.length,
    afterError: event.error?.Error,
  });
  return { endpoints, endpointConfigs, models, stoppedCompilationJobs, kept: [...kept] };
}
