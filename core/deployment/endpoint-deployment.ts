import { EndpointStatuses } from '../ports/index.js';

/**
 * What the steps that create, poll and delete endpoints agree on: the variant name, how long an
 * endpoint may take to come into service, the poll's timings, and the statuses in which SageMaker
 * refuses to delete one. Shared by both workflows' deploy, check and clean-up steps and by planning,
 * which counts the polls' worst case against the history quota.
 */

/**
 * Creating an endpoint takes minutes (image pull, model download, health check); SageMaker gives
 * up itself after its own timeouts, this deadline only bounds our Wait → Check loop.
 */
export const ENDPOINT_DEADLINE_SECONDS = 45 * 60;

export interface EndpointTimings {
  /** First wait before DescribeEndpoint; each later wait doubles, up to maxPollSeconds. */
  readonly pollSeconds: number;
  readonly maxPollSeconds: number;
  readonly nowEpochMs: () => number;
  /** Delay between "in service" and the shared start of the load workers (they start apart). */
  readonly loadStartDelaySeconds: number;
}

/**
 * Statuses in which SageMaker refuses DeleteEndpoint until the operation under way settles (it
 * answers a ValidationException naming the status); the endpoint is deletable once it is InService
 * or Failed.
 */
export const BUSY_ENDPOINT_STATUSES: readonly string[] = [
  EndpointStatuses.creating,
  EndpointStatuses.updating,
  EndpointStatuses.systemUpdating,
  EndpointStatuses.rollingBack,
];
