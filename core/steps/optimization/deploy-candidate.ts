import {
  CandidateStatuses,
  type DeployCandidateEvent,
  type DeploymentState,
  OptimizationStates,
} from '../../contracts/index.js';
import type { Logger, ModelHost } from '../../ports/index.js';
import {
  candidateDeployment,
  ENDPOINT_DEADLINE_SECONDS,
  type EndpointTimings,
} from '../../deployment/index.js';
import { refuseRedrive } from './redrive.js';

export interface DeployDeps extends EndpointTimings {
  readonly host: ModelHost;
  readonly region: string;
  readonly logger: Logger;
}

/**
 * State "Deploy candidate": CreateModel, CreateEndpointConfig and CreateEndpoint, all named after
 * the run and tagged with it, as `candidateDeployment` builds them (the report shows the same). A candidate whose compiled artifact failed to build is skipped with
 * the reason; an existing endpoint is only looked at. A redriven run is refused before anything is
 * created (redrive.ts).
 */
export async function deployCandidate(
  event: DeployCandidateEvent,
  deps: DeployDeps,
): Promise<DeploymentState> {
  refuseRedrive(event, OptimizationStates.deployCandidate);
  const { candidate } = event;
  const pending = {
    candidateId: candidate.id,
    endpointName: candidate.endpointName,
    status: CandidateStatuses.deploying,
    waitSeconds: deps.pollSeconds,
    deadlineEpochMs: deps.nowEpochMs() + ENDPOINT_DEADLINE_SECONDS * 1000,
  } as const;
  const deployment = candidateDeployment(event, deps.region);
  if (deployment.kind === 'existing') return pending;
  if (deployment.kind === 'skipped') {
    const { skipReason } = deployment;
    deps.logger.warn('Candidate skipped', { candidateId: candidate.id, skipReason });
    return { ...pending, status: CandidateStatuses.skipped, skipReason };
  }
  await deps.host.createModel(deployment.model);
  await deps.host.createEndpointConfig(deployment.endpointConfig);
  const createdEpochMs = deps.nowEpochMs();
  await deps.host.createEndpoint(deployment.endpoint);
  deps.logger.info('Endpoint creating', {
    candidateId: candidate.id,
    endpointName: candidate.endpointName,
    image: deployment.model.image,
    imageSource: deployment.imageSource,
  });
  return { ...pending, createdEpochMs };
}
