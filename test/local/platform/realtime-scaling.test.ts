import { describe, expect, it } from '@jest/globals';
import { scalingPolicyFor } from '../../../core/serving/scaling-policy.js';
import {
  decideRealtimeScaling,
  LocalRealtimeAutoscaler,
  realtimePolicyOf,
  type RealtimeScalingPolicy,
  type RealtimeScalingState,
  type ScalableRealtimeEndpoint,
} from '../../../local/platform/realtime-scaling.js';

/** 50 TPS per instance × 60 × 0.6: 1800 invocations per instance per minute. */
const POLICY: RealtimeScalingPolicy = {
  minInstanceCount: 2,
  maxInstanceCount: 6,
  targetInvocationsPerInstance: 1800,
  scaleInCooldownSeconds: 300,
  scaleOutCooldownSeconds: 60,
};

function state(overrides: Partial<RealtimeScalingState>): RealtimeScalingState {
  return {
    desired: 2,
    inService: 2,
    invocationsPerInstance: 0,
    sinceScaleOutMs: Number.POSITIVE_INFINITY,
    belowForMs: 0,
    ...overrides,
  };
}

/** An endpoint whose changes complete when the test says, on the test's clock. */
class FakeEndpoint implements ScalableRealtimeEndpoint {
  currentInstanceCount = 2;
  desiredInstanceCount = 2;
  invocations = 0;
  readonly changes: number[] = [];
  private complete: (() => void) | undefined;

  totalInvocations(): number {
    return this.invocations;
  }

  setDesiredInstanceCount(count: number): Promise<void> {
    this.changes.push(count);
    this.desiredInstanceCount = count;
    return new Promise((resolve) => {
      this.complete = () => {
        this.currentInstanceCount = count;
        resolve();
      };
    });
  }

  /** The change in progress completes; resolves once the autoscaler has seen it. */
  async completeChange(): Promise<void> {
    this.complete?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('decideRealtimeScaling', () => {
  it('scales out to the count that brings the invocations per instance back to the target', () => {
    expect(decideRealtimeScaling(POLICY, state({ invocationsPerInstance: 4000 }), 1)).toEqual({
      to: 5,
      cause: 'InvocationsPerInstance 4000/min above the target 1800',
    });
  });

  it('keeps the count while the scale-out cooldown since the last scale-out runs', () => {
    expect(
      decideRealtimeScaling(POLICY, state({ invocationsPerInstance: 4000, sinceScaleOutMs: 59_000 }), 1),
    ).toBeUndefined();
  });

  it('scales the cooldown by the time scale', () => {
    expect(
      decideRealtimeScaling(POLICY, state({ invocationsPerInstance: 4000, sinceScaleOutMs: 600 }), 0.01),
    ).toEqual({ to: 5, cause: 'InvocationsPerInstance 4000/min above the target 1800' });
  });

  it('never scales out past the maximum', () => {
    expect(decideRealtimeScaling(POLICY, state({ invocationsPerInstance: 9000 }), 1)).toEqual({
      to: 6,
      cause: 'InvocationsPerInstance 9000/min above the target 1800',
    });
  });

  it('scales in once the count has been too high for the scale-in cooldown, not to below the minimum', () => {
    expect(
      decideRealtimeScaling(
        POLICY,
        state({ desired: 5, inService: 5, invocationsPerInstance: 100, belowForMs: 300_000 }),
        1,
      ),
    ).toEqual({
      to: 2,
      cause:
        'InvocationsPerInstance 100/min below the target 1800 for 300 s (scale-in cooldown 300 s × time scale 1)',
    });
  });

  it('keeps the count while the scale-in cooldown runs', () => {
    expect(
      decideRealtimeScaling(
        POLICY,
        state({ desired: 5, inService: 5, invocationsPerInstance: 100, belowForMs: 299_000 }),
        1,
      ),
    ).toBeUndefined();
  });
});

describe('realtimePolicyOf', () => {
  it('runs the figures of the recommended policy’s requests', () => {
    // Prepare
    const recommended = scalingPolicyFor({
      endpointName: 'mso-r1-ep-c5',
      variantName: 'AllTraffic',
      perInstanceTps: 50,
      headroom: 0.6,
      minInstances: 2,
      peakTps: 150,
      scaleInCooldownSeconds: 300,
      scaleOutCooldownSeconds: 60,
    });

    // Act
    const local = realtimePolicyOf(recommended);

    // Assert
    expect(local).toEqual({ ...POLICY, maxInstanceCount: 5 });
  });
});

describe('LocalRealtimeAutoscaler', () => {
  it('measures the rate over its window, scales out once, and decides nothing while the change runs', async () => {
    // Prepare: 2 instances serving 6000 invocations in 60 s: 3000 per instance per minute.
    let nowMs = 0;
    const endpoint = new FakeEndpoint();
    const scaler = new LocalRealtimeAutoscaler({
      endpoint,
      policy: POLICY,
      cooldownTimeScale: 1,
      metricWindowMs: 60_000,
      now: () => nowMs,
    });
    scaler.tick();
    nowMs = 60_000;
    endpoint.invocations = 6000;

    // Act
    const first = scaler.tick();
    nowMs = 70_000;
    const during = scaler.tick();
    nowMs = 90_000;
    await endpoint.completeChange();

    // Assert
    expect(first).toEqual({ to: 4, cause: 'InvocationsPerInstance 3000/min above the target 1800' });
    expect(during).toBeUndefined();
    expect(endpoint.changes).toEqual([4]);
    expect(scaler.activities()).toEqual([
      {
        startEpochMs: 60_000,
        endEpochMs: 90_000,
        fromInstanceCount: 2,
        toInstanceCount: 4,
        cause: 'InvocationsPerInstance 3000/min above the target 1800',
      },
    ]);
  });

  it('waits the scale-out cooldown from the end of the last scale-out', async () => {
    // Prepare: a scale-out to 4 that completes at 90 s; the load keeps rising.
    let nowMs = 0;
    const endpoint = new FakeEndpoint();
    const scaler = new LocalRealtimeAutoscaler({
      endpoint,
      policy: POLICY,
      cooldownTimeScale: 1,
      metricWindowMs: 60_000,
      now: () => nowMs,
    });
    scaler.tick();
    nowMs = 60_000;
    endpoint.invocations = 6000;
    scaler.tick();
    nowMs = 90_000;
    await endpoint.completeChange();

    // Act: 14,400 more invocations since 60 s, over 4 instances (more than 2250 each per minute,
    // so 6 are wanted), 59 s then 60 s after the scale-out ended.
    nowMs = 149_000;
    endpoint.invocations = 6000 + 14_400;
    const early = scaler.tick();
    nowMs = 150_000;
    const due = scaler.tick();

    // Assert
    expect(early).toBeUndefined();
    expect(due?.to).toBe(6);
    expect(endpoint.changes).toEqual([4, 6]);
  });

  it('refuses a policy that would take a real-time variant to zero instances', () => {
    // Act
    const create = () =>
      new LocalRealtimeAutoscaler({
        endpoint: new FakeEndpoint(),
        policy: { ...POLICY, minInstanceCount: 0 },
        cooldownTimeScale: 1,
        metricWindowMs: 60_000,
      });

    // Assert
    expect(create).toThrow(
      'Local real-time autoscaling: minInstanceCount: got 0, expected an integer of at least 1',
    );
  });
});
