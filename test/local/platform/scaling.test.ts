import { describe, expect, it } from '@jest/globals';
import type { AsyncScalingPolicy } from '../../../core/ports/index.js';
import { decideScaling, LocalScalingRegistry, type ScalingState } from '../../../local/platform/scaling.js';

const POLICY: AsyncScalingPolicy = {
  minInstanceCount: 0,
  maxInstanceCount: 3,
  targetBacklogPerInstance: 2,
  scaleInCooldownSeconds: 600,
  scaleOutCooldownSeconds: 60,
};

function state(overrides: Partial<ScalingState>): ScalingState {
  return { desired: 1, backlog: 0, idleForMs: 0, sinceScaleOutMs: Number.POSITIVE_INFINITY, ...overrides };
}

describe('decideScaling', () => {
  it('starts one instance from zero as soon as a request waits (HasBacklogWithoutCapacity)', () => {
    expect(decideScaling(POLICY, state({ desired: 0, backlog: 7 }), 0.01)).toEqual({
      to: 1,
      cause: 'HasBacklogWithoutCapacity: 7 request(s) waiting and no instance',
    });
  });

  it('stays at zero without backlog', () => {
    expect(
      decideScaling(POLICY, state({ desired: 0, backlog: 0, idleForMs: 10_000_000 }), 0.01),
    ).toBeUndefined();
  });

  it('scales out to ⌈backlog ÷ target⌉ while the backlog per instance is above the target', () => {
    expect(decideScaling(POLICY, state({ desired: 1, backlog: 5 }), 0.01)).toEqual({
      to: 3,
      cause: 'ApproximateBacklogSizePerInstance 5 above the target 2',
    });
  });

  it('never scales out beyond the maximum', () => {
    expect(decideScaling(POLICY, state({ desired: 1, backlog: 100 }), 0.01)?.to).toBe(3);
  });

  it('waits for the scaled scale-out cooldown between two scale-outs', () => {
    // 60 s × 0.01 = 600 ms
    expect(
      decideScaling(POLICY, state({ desired: 1, backlog: 5, sinceScaleOutMs: 599 }), 0.01),
    ).toBeUndefined();
    expect(decideScaling(POLICY, state({ desired: 1, backlog: 5, sinceScaleOutMs: 600 }), 0.01)?.to).toBe(3);
  });

  it('keeps the count while the backlog per instance is at the target', () => {
    expect(decideScaling(POLICY, state({ desired: 2, backlog: 4 }), 0.01)).toBeUndefined();
  });

  it('scales in to the minimum once the backlog was empty for the scaled scale-in cooldown', () => {
    // 600 s × 0.01 = 6 s
    expect(decideScaling(POLICY, state({ desired: 2, backlog: 0, idleForMs: 5999 }), 0.01)).toBeUndefined();
    expect(decideScaling(POLICY, state({ desired: 2, backlog: 0, idleForMs: 6000 }), 0.01)).toEqual({
      to: 0,
      cause: 'no backlog for 6 s (scale-in cooldown 600 s × time scale 0.01)',
    });
  });

  it('brings a count outside the policy back to its bounds', () => {
    const bounded: AsyncScalingPolicy = { ...POLICY, minInstanceCount: 1, maxInstanceCount: 2 };
    expect(decideScaling(bounded, state({ desired: 0 }), 1)?.to).toBe(1);
    expect(decideScaling(bounded, state({ desired: 5 }), 1)?.to).toBe(2);
  });
});

describe('LocalScalingRegistry', () => {
  it('keeps a policy per endpoint variant until it is deregistered', async () => {
    // Prepare
    const registry = new LocalScalingRegistry();

    // Act
    await registry.configureAsyncScaling('mso-r1-async', 'AllTraffic', POLICY);
    const registered = registry.policyOf('mso-r1-async', 'AllTraffic');
    const deregistered = await registry.deregisterEndpointVariant('mso-r1-async', 'AllTraffic');
    const again = await registry.deregisterEndpointVariant('mso-r1-async', 'AllTraffic');

    // Assert
    expect(registered).toEqual(POLICY);
    expect(registry.policyOf('mso-r1-async', 'OtherVariant')).toBeUndefined();
    expect(deregistered).toBe(true);
    expect(again).toBe(false);
    expect(registry.policyOf('mso-r1-async', 'AllTraffic')).toBeUndefined();
  });

  it('fails when the maximum is below the minimum', async () => {
    const registry = new LocalScalingRegistry();
    await expect(
      registry.configureAsyncScaling('e', 'v', { ...POLICY, minInstanceCount: 2, maxInstanceCount: 1 }),
    ).rejects.toThrow('Autoscaling of e/v: maxInstanceCount: got 1, expected at least minInstanceCount (2)');
  });

  it('fails when the target backlog is not positive', async () => {
    const registry = new LocalScalingRegistry();
    await expect(
      registry.configureAsyncScaling('e', 'v', { ...POLICY, targetBacklogPerInstance: 0 }),
    ).rejects.toThrow('targetBacklogPerInstance: got 0, expected a number above 0');
  });
});
