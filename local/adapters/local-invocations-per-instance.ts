import type {
  EndpointMetricsQuery,
  InvocationsPerInstance,
  InvocationsPerInstanceReader,
} from '../../core/ports/index.js';
import type { InstanceInvocations } from '../platform/index.js';

/** What the reader needs of the local host: the routing front's counts (local-model-host.ts). */
export interface InstanceInvocationsSource {
  invocationsPerInstance(endpointName: string): readonly InstanceInvocations[] | undefined;
}

/**
 * `InvocationsPerInstanceReader` over the local endpoint's routing front, which counts the
 * requests it sends to each instance process: what SageMaker does not publish per instance. The
 * counts cover the endpoint's whole life, so the proof's warm-up is in them; the window is not
 * needed (the proof's endpoint serves nothing else).
 */
export class LocalInvocationsPerInstance implements InvocationsPerInstanceReader {
  constructor(private readonly source: InstanceInvocationsSource) {}

  read(query: EndpointMetricsQuery): Promise<InvocationsPerInstance | undefined> {
    const counts = this.source.invocationsPerInstance(query.endpointName);
    if (counts === undefined || counts.length === 0) return Promise.resolve(undefined);
    return Promise.resolve({
      scope: 'instance',
      // Instance ids are `<endpoint>/instance-<n>`: the endpoint is the report's already.
      instances: counts.map((c) => ({
        instance: c.instanceId.slice(c.instanceId.lastIndexOf('/') + 1),
        invocations: c.invocations,
      })),
      note: 'counted by the local routing front for each instance process, warm-up included',
    });
  }
}
