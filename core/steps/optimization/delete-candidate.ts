import { ResourceBusyError } from '../../contracts/index.js';
import type { DeleteCandidateEvent, DeletedResources } from '../../contracts/index.js';
import { EndpointStatuses, type ModelHost } from '../../ports/index.js';
import { BUSY_ENDPOINT_STATUSES } from '../../deployment/index.js';
import type { CleanUpDeps } from '../../deployment/index.js';

/** Deletes an endpoint unless it is still changing, in which case the workflow retries later. */
async function deleteEndpointWhenSettled(host: ModelHost, endpointName: string): Promise<boolean> {
  const endpoint = await host.describeEndpoint(endpointName);
  if (endpoint === undefined || endpoint.status === EndpointStatuses.deleting) return false;
  if (BUSY_ENDPOINT_STATUSES.includes(endpoint.status)) {
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

/**
 * State "Delete candidate endpoint": as soon as a candidate's test ends (or fails), its endpoint,
 * endpoint config and model go, so a run pays for one candidate at a time per Map slot.
 */
export async function deleteCandidate(
  event: DeleteCandidateEvent,
  deps: CleanUpDeps,
): Promise<DeletedResources> {
  const { candidate } = event;
  // With `keep-recommended`, endpoints live until the ranking; "Delete candidates not kept" then
  // deletes all but the recommended one.
  // The proof's endpoint comes after the ranking and is never the one kept: it goes at once.
  const kept = event.plan.cleanupPolicy === 'keep-recommended' && candidate.proofOf === undefined;
  if (candidate.kind === 'existing' || kept) {
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
