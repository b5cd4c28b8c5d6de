import { type InferenceComponentStatus, InferenceComponentStatuses } from '../contracts/index.js';
import type {
  InferenceComponentDescription,
  InferenceComponentHost,
  InferenceComponentSpec,
} from './inference-component-host.js';

/**
 * The life of an endpoint's inference components, for the steps that create them, wait on them and
 * delete them before their endpoint. Each function does one round of calls and returns what it
 * found: the workflow's Wait → Check loops do the waiting, with their deadlines.
 *
 * SageMaker refuses to delete an endpoint that still hosts components (the developer guide's
 * "Delete Endpoints and Resources" deletes them first,
 * https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-delete-resources.html; the API
 * answers a ValidationException otherwise, as reported in aws/amazon-sagemaker-feedback#49), and a
 * component is deleted from a settled status: one still `Creating` could not be deleted in the
 * report of aws/amazon-sagemaker-examples#3432, so clean-up waits for it to settle rather than
 * counting on a delete SageMaker may refuse.
 */

/** Created one after another: SageMaker's control plane throttles per account. Idempotent. */
export async function createComponents(
  host: InferenceComponentHost,
  components: readonly InferenceComponentSpec[],
): Promise<void> {
  for (const component of components) await host.createInferenceComponent(component);
}

export type ComponentsProgress =
  /** Every component is in service: the endpoint can be measured through them. */
  | { readonly state: 'in-service'; readonly components: readonly InferenceComponentDescription[] }
  /** Some are still being created or updated: wait and look again. */
  | { readonly state: 'waiting'; readonly waitingOn: readonly string[] }
  /** One failed (or vanished): the candidate fails with SageMaker's reason; clean-up follows. */
  | { readonly state: 'failed'; readonly inferenceComponentName: string; readonly failureReason: string };

/** One DescribeInferenceComponent per component; the first failure decides. */
export async function componentsProgress(
  host: InferenceComponentHost,
  names: readonly string[],
): Promise<ComponentsProgress> {
  const described: InferenceComponentDescription[] = [];
  const waitingOn: string[] = [];
  for (const name of names) {
    const component = await host.describeInferenceComponent(name);
    if (component === undefined) {
      return {
        state: 'failed',
        inferenceComponentName: name,
        failureReason: `inference component ${name} does not exist`,
      };
    }
    if (
      component.status === InferenceComponentStatuses.failed ||
      component.status === InferenceComponentStatuses.deleting
    ) {
      return {
        state: 'failed',
        inferenceComponentName: name,
        failureReason:
          component.failureReason ??
          `inference component ${name} is ${component.status}${component.status === InferenceComponentStatuses.failed ? ' (SageMaker gave no reason)' : ''}`,
      };
    }
    if (component.status === InferenceComponentStatuses.inService) described.push(component);
    else waitingOn.push(name);
  }
  return waitingOn.length === 0
    ? { state: 'in-service', components: described }
    : { state: 'waiting', waitingOn };
}

/** Statuses a component is deleted from; the others are waited out. */
const DELETABLE: ReadonlySet<InferenceComponentStatus> = new Set<InferenceComponentStatus>([
  InferenceComponentStatuses.inService,
  InferenceComponentStatuses.failed,
]);

export interface ComponentsTeardown {
  /** Components this round asked SageMaker to delete. */
  readonly deleted: readonly string[];
  /**
   * Components the endpoint still hosts after this round (being deleted, or still settling): the
   * endpoint can be deleted once none is left.
   */
  readonly remaining: readonly { readonly name: string; readonly status: InferenceComponentStatus }[];
}

/**
 * One round of deleting an endpoint's components: each settled one is deleted, the others are
 * reported with their status. The caller deletes the endpoint once `remaining` is empty, and
 * otherwise waits and calls again.
 */
export async function deleteEndpointComponents(
  host: InferenceComponentHost,
  endpointName: string,
): Promise<ComponentsTeardown> {
  const deleted: string[] = [];
  const remaining: { name: string; status: InferenceComponentStatus }[] = [];
  for (const listed of await host.listEndpointComponents(endpointName)) {
    // The listing's status is optional in the API: describe when it is absent.
    const status = listed.status ?? (await host.describeInferenceComponent(listed.name))?.status;
    if (status === undefined) continue; // gone between the listing and the describe
    if (DELETABLE.has(status)) {
      if (await host.deleteInferenceComponent(listed.name)) {
        deleted.push(listed.name);
        remaining.push({ name: listed.name, status: InferenceComponentStatuses.deleting });
      }
    } else remaining.push({ name: listed.name, status });
  }
  return { deleted, remaining };
}
