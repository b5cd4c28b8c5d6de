import type { CleanUpAsyncRunEvent, CleanUpAccount, HostedResourceNames } from '../../contracts/index.js';
import { withCompletedWork } from '../../contracts/index.js';
import type { ObjectStore } from '../../ports/index.js';
import { type CleanUpDeps, cleanUpRun } from '../../deployment/index.js';
import { completedResults } from '../../async/index.js';

/**
 * States "Clean up async run" and "Clean up after failure" of the async workflow: the same run
 * clean-up as the optimization (everything named after the run and tagged with it, found again by
 * listing, so a retry or a crash in between loses nothing), with the endpoint's autoscaling
 * deregistered before it is deleted. A reused endpoint is never the run's to delete: its name does
 * not carry the run's prefix. `keepAfterRun` keeps a deployed endpoint (scaled to zero, tagged so
 * the janitor leaves it) only when the run succeeded: after a failure nothing is kept. Like the
 * optimization's, it never stops at the first error and waits out an endpoint still Creating over
 * rounds (the workflow's Wait → clean up loop), returning its account. After a failure, the run's
 * error also names the results the run recorded before it failed, and where (completed-results.ts).
 */

export type CleanUpAsyncRunDeps = Omit<CleanUpDeps, 'compiler'> &
  Required<Pick<CleanUpDeps, 'scaling'>> & {
    /** Reads the batches' recorded results after a failure. */
    readonly store: Pick<ObjectStore, 'getBytes' | 'list'>;
  };

export async function cleanUpAsyncRun(
  event: CleanUpAsyncRunEvent,
  deps: CleanUpAsyncRunDeps,
): Promise<CleanUpAccount> {
  const { endpoint } = event.plan;
  const keep: HostedResourceNames | undefined =
    event.error === undefined &&
    endpoint.action === 'deploy' &&
    endpoint.keepAfterRun &&
    endpoint.endpointConfigName !== undefined &&
    endpoint.modelName !== undefined
      ? {
          endpointName: endpoint.endpointName,
          endpointConfigName: endpoint.endpointConfigName,
          modelName: endpoint.modelName,
        }
      : undefined;
  if (event.error !== undefined && endpoint.action === 'deploy') {
    // The listing below deregisters the autoscaling of the endpoints it finds; an endpoint deleted
    // from outside the run (which fails the run) is not found, yet its scalable target and alarm
    // stay registered. Deregistering is idempotent (`false` when nothing was registered).
    await deps.scaling.deregisterEndpointVariant(endpoint.endpointName, endpoint.variantName);
  }
  return cleanUpRun(
    {
      plan: { runId: event.plan.runId },
      ...(keep === undefined && event.summary?.cleanUp === undefined
        ? {}
        : {
            summary: {
              ...(keep === undefined ? {} : { keep }),
              ...(event.summary?.cleanUp === undefined ? {} : { cleanUp: event.summary.cleanUp }),
            },
          }),
      ...(event.error === undefined
        ? {}
        : { error: withCompletedWork(event.error, await completedResults(event.plan, deps.store)) }),
      ...(event.cleanUp === undefined ? {} : { cleanUp: event.cleanUp }),
    },
    deps,
  );
}
