import { describe, expect, it } from '@jest/globals';
import { LocalInvocationsPerInstance } from '../../../local/adapters/local-invocations-per-instance.js';
import type { InstanceInvocations } from '../../../local/platform/realtime-endpoint.js';

const QUERY = {
  endpointName: 'mso-r-ep-c5-prove',
  variantName: 'AllTraffic',
  startEpochMs: 0,
  endEpochMs: 1000,
};

function source(counts: readonly InstanceInvocations[] | undefined) {
  return { invocationsPerInstance: (name: string) => (name === QUERY.endpointName ? counts : undefined) };
}

describe('LocalInvocationsPerInstance', () => {
  it('gives the routing front’s count of each instance, named without the endpoint', async () => {
    // Prepare
    const reader = new LocalInvocationsPerInstance(
      source([
        {
          instanceId: 'mso-r-ep-c5-prove/instance-1',
          pid: 11,
          invocations: 169,
          outstanding: 0,
          inService: true,
        },
        {
          instanceId: 'mso-r-ep-c5-prove/instance-2',
          pid: 12,
          invocations: 191,
          outstanding: 0,
          inService: true,
        },
      ]),
    );

    // Act
    const found = await reader.read(QUERY);

    // Assert
    expect(found).toEqual({
      scope: 'instance',
      instances: [
        { instance: 'instance-1', invocations: 169 },
        { instance: 'instance-2', invocations: 191 },
      ],
      note: 'counted by the local routing front for each instance process, warm-up included',
    });
  });

  it('gives nothing for an endpoint without a front (one instance)', async () => {
    // Act
    const found = await new LocalInvocationsPerInstance(source(undefined)).read(QUERY);

    // Assert
    expect(found).toBeUndefined();
  });
});
