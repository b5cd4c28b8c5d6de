import { describe, expect, it } from '@jest/globals';
import type { DeploymentState } from '../../../../core/contracts/optimization-state.js';
import type { RealtimeScalingApplier, ScalingRegistry } from '../../../../core/ports/index.js';
import { rampScaling, type RampScalingDeps } from '../../../../core/steps/optimization/ramp-scaling.js';
import { scalingPolicyFor } from '../../../../core/serving/scaling-policy.js';
import { silentLogger } from '../../../support/memory-object-store.js';
import type { RealtimeScalingRequests } from '../../../../core/contracts/scaling-requests.js';

const RAMP_ENDPOINT = 'mso-run-ab12cd34-ep-large-ramp';
const NOW_MS = Date.parse('2026-11-22T10:00:00Z');

/** The report's two requests aimed at the ramp's endpoint: 2–9 instances at 4200 invocations/min. */
const SCALING: RealtimeScalingRequests = scalingPolicyFor({
  endpointName: RAMP_ENDPOINT,
  variantName: 'AllTraffic',
  perInstanceTps: 100,
  headroom: 0.7,
  minInstances: 2,
  peakTps: 600,
  scaleInCooldownSeconds: 300,
  scaleOutCooldownSeconds: 60,
});

/** As "Check ramp endpoint" leaves it: in service, two workers, a shared start already past. */
const DEPLOYMENT: DeploymentState = {
  candidateId: 'large-ramp',
  endpointName: RAMP_ENDPOINT,
  status: 'IN_SERVICE',
  waitSeconds: 30,
  deadlineEpochMs: NOW_MS + 3_600_000,
  createdEpochMs: NOW_MS - 600_000,
  loadStartEpochMs: NOW_MS - 5_000,
  workerIndexes: [0, 1],
  instanceType: 'ml.c5.large',
  instanceCount: 2,
  variantName: 'AllTraffic',
};

/** An applier and a registry that record their calls; `fail` makes the call reject with it. */
function fakes(fail: { apply?: Error; deregister?: Error; deregistered?: boolean } = {}) {
  const applied: RealtimeScalingRequests[] = [];
  const deregistrations: [string, string][] = [];
  const applier: RealtimeScalingApplier = {
    applyRealtimeScaling: (requests) => {
      applied.push(requests);
      return fail.apply === undefined ? Promise.resolve() : Promise.reject(fail.apply);
    },
  };
  const registry: ScalingRegistry = {
    deregisterEndpointVariant: (endpointName, variantName) => {
      deregistrations.push([endpointName, variantName]);
      return fail.deregister === undefined
        ? Promise.resolve(fail.deregistered ?? true)
        : Promise.reject(fail.deregister);
    },
    configureAsyncScaling: () => Promise.reject(new Error('not used by the ramp')),
  };
  let nowCalls = 0;
  const deps: RampScalingDeps = {
    applier,
    registry,
    logger: silentLogger,
    nowEpochMs: () => {
      nowCalls += 1;
      return NOW_MS;
    },
    loadStartDelaySeconds: 20,
  };
  return { deps, applied, deregistrations, nowCalls: () => nowCalls };
}

describe('rampScaling: apply', () => {
  it('hands the applier the two requests as given', async () => {
    // Prepare
    const { deps, applied } = fakes();

    // Act
    await rampScaling({ action: 'apply', scaling: SCALING, deployment: DEPLOYMENT }, deps);

    // Assert
    expect(applied).toEqual([SCALING]);
  });

  it('returns the deployment with a new shared start, now + the start delay, every other field kept', async () => {
    // Prepare
    const { deps } = fakes();

    // Act
    const result = await rampScaling({ action: 'apply', scaling: SCALING, deployment: DEPLOYMENT }, deps);

    // Assert: 20 s after now, not the start "Check ramp endpoint" set before the policy was attached.
    expect(result).toEqual({ ...DEPLOYMENT, loadStartEpochMs: NOW_MS + 20_000 });
  });

  it('fails when the applier fails, with its error and without a new start', async () => {
    // Prepare
    const refused = Object.assign(new Error('MaxCapacity must be at least MinCapacity'), {
      name: 'ValidationException',
    });
    const { deps, nowCalls } = fakes({ apply: refused });

    // Act
    const applying = rampScaling({ action: 'apply', scaling: SCALING, deployment: DEPLOYMENT }, deps);

    // Assert
    await expect(applying).rejects.toBe(refused);
    expect(nowCalls()).toBe(0);
  });
});

describe('rampScaling: deregister', () => {
  it('deregisters the ramp endpoint’s AllTraffic variant and says it was registered', async () => {
    // Prepare
    const { deps, deregistrations } = fakes({ deregistered: true });

    // Act
    const result = await rampScaling({ action: 'deregister', endpointName: RAMP_ENDPOINT }, deps);

    // Assert
    expect(deregistrations).toEqual([[RAMP_ENDPOINT, 'AllTraffic']]);
    expect(result).toEqual({ deregistered: true });
  });

  it('returns deregistered false for a variant never registered (the ramp failed before "apply")', async () => {
    // Prepare
    const { deps } = fakes({ deregistered: false });

    // Act
    const result = await rampScaling({ action: 'deregister', endpointName: RAMP_ENDPOINT }, deps);

    // Assert
    expect(result).toEqual({ deregistered: false });
  });

  it('fails when the registry fails, with its error', async () => {
    // Prepare
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    const { deps } = fakes({ deregister: throttled });

    // Act
    const deregistering = rampScaling({ action: 'deregister', endpointName: RAMP_ENDPOINT }, deps);

    // Assert
    await expect(deregistering).rejects.toBe(throttled);
  });
});
