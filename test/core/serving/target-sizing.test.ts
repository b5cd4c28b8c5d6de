import { describe, expect, it } from '@jest/globals';
import { MAX_ENDPOINT_INSTANCE_COUNT } from '../../../core/contracts/endpoint-limits.js';
import {
  candidateAtTarget,
  costAtTargetKey,
  type SizingCandidate,
} from '../../../core/serving/target-sizing.js';

const C5_XLARGE: SizingCandidate = {
  kind: 'realtime',
  instanceType: 'ml.c5.xlarge',
  measuredInstances: 1,
  sustainableTps: 120,
  usdPerHour: 0.204,
};
const SETTINGS = { targetTps: 600, minInstances: 2, headroom: 0.7 };

describe('candidateAtTarget: instances', () => {
  it('sizes the count as ⌈target ÷ (per-instance TPS × headroom)⌉ and prices it at the target', () => {
    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, SETTINGS);

    // Assert: ⌈600 ÷ 84⌉ = 8; 8 × $0.204 = $1.632/h; $1.632 ÷ (600 × 3600) × 10⁶ = $0.7556
    expect(atTarget).toEqual({
      targetTps: 600,
      canServe: true,
      instances: 8,
      perInstanceTps: 120,
      usdPerHour: 1.632,
      costPer1MUsd: 0.7556,
      note: 'measured on 1 instance: 120 TPS; ⌈600 ÷ (120 × 0.7 headroom)⌉ = 8',
    });
  });

  it('divides a multi-instance measurement by its instance count, and says so', () => {
    // Act
    const atTarget = candidateAtTarget({ ...C5_XLARGE, measuredInstances: 2, sustainableTps: 240 }, SETTINGS);

    // Assert
    expect(atTarget.instances).toBe(8);
    expect(atTarget.note).toBe(
      'measured on 2 instances: 240 TPS ÷ 2 = 120 TPS per instance; ⌈600 ÷ (120 × 0.7 headroom)⌉ = 8',
    );
  });

  it('raises a count below the availability minimum to it', () => {
    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, { ...SETTINGS, targetTps: 50 });

    // Assert: ⌈50 ÷ 84⌉ = 1, raised to 2; 2 × $0.204 = $0.408/h
    expect(atTarget.instances).toBe(2);
    expect(atTarget.usdPerHour).toBe(0.408);
    expect(atTarget.note).toBe(
      'measured on 1 instance: 120 TPS; ⌈50 ÷ (120 × 0.7 headroom)⌉ = 1, raised to the availability minimum of 2',
    );
  });

  it('allows one instance when the availability minimum is 1', () => {
    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, { ...SETTINGS, targetTps: 50, minInstances: 1 });

    // Assert
    expect(atTarget.instances).toBe(1);
  });

  it('counts a target that is an exact multiple of the headroom rate without rounding noise', () => {
    // Act: 9.8 ÷ (2 × 0.7) is 7.000000000000001 in floating point
    const atTarget = candidateAtTarget(
      { ...C5_XLARGE, sustainableTps: 2 },
      { ...SETTINGS, targetTps: 9.8, minInstances: 1 },
    );

    // Assert
    expect(atTarget.instances).toBe(7);
  });

  it('caps the count at the account’s instance quota and says the target cannot be carried', () => {
    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, { ...SETTINGS, instanceQuotas: { 'ml.c5.xlarge': 5 } });

    // Assert
    expect(atTarget.canServe).toBe(false);
    expect(atTarget.instances).toBe(5);
    expect(atTarget.usdPerHour).toBe(1.02);
    expect(atTarget.note).toBe(
      "measured on 1 instance: 120 TPS; ⌈600 ÷ (120 × 0.7 headroom)⌉ = 8; capped at the account's quota " +
        '"ml.c5.xlarge for endpoint usage" of 5: one endpoint cannot have more, and the target needs 8; raise the ' +
        'quota in the Service Quotas console (Amazon SageMaker, "ml.c5.xlarge for endpoint usage", ' +
        'request-service-quota-increase)',
    );
  });

  it('fails when targetTps needs more instances than an endpoint may have, with no count and no price', () => {
    // Prepare: 1e12 TPS at 120 TPS × 0.7 per instance needs ⌈1.19e10⌉ instances, above 2^31 − 1
    const settings = { ...SETTINGS, targetTps: 1e12 };

    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, settings);

    // Assert
    expect(atTarget.canServe).toBe(false);
    expect(atTarget.instances).toBeUndefined();
    expect(atTarget.usdPerHour).toBeUndefined();
    expect(atTarget.note).toContain(`InitialInstanceCount is at most ${MAX_ENDPOINT_INSTANCE_COUNT}`);
    expect(atTarget.note).toContain('"ml.c5.xlarge for endpoint usage"');
    expect(costAtTargetKey(atTarget)).toBe(Number.POSITIVE_INFINITY);
  });

  it('fails when targetTps needs more instances than an endpoint may have where the run measures (locally)', () => {
    // Prepare: 1e9 TPS needs about 11.9 million instances; this machine runs 8 at most
    const endpointLimit = { instances: 8, name: 'this machine’s model-server budget', fix: 'size it on AWS' };
    const settings = { ...SETTINGS, targetTps: 1e9, endpointLimit };

    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, settings);

    // Assert
    expect(atTarget).toEqual({
      targetTps: 1e9,
      canServe: false,
      instances: 8,
      perInstanceTps: 120,
      note:
        'measured on 1 instance: 120 TPS; ⌈1000000000 ÷ (120 × 0.7 headroom)⌉ = 11904762; more than the 8 ' +
        'instances of this machine’s model-server budget: the target needs 11904762; size it on AWS',
    });
  });

  it('sizes a count within the endpoint limit as without it', () => {
    // Act
    const limited = candidateAtTarget(C5_XLARGE, {
      ...SETTINGS,
      endpointLimit: { instances: 8, name: 'a budget', fix: 'lower it' },
    });

    // Assert
    expect(limited).toEqual(candidateAtTarget(C5_XLARGE, SETTINGS));
  });

  it('fails when targetTps needs more instances than the account’s quota lets one endpoint have', () => {
    // Prepare: 1e9 TPS needs about 11.9 million instances; the account may run 20
    const settings = { ...SETTINGS, targetTps: 1e9, instanceQuotas: { 'ml.c5.xlarge': 20 } };

    // Act
    const atTarget = candidateAtTarget(C5_XLARGE, settings);

    // Assert
    expect(atTarget.canServe).toBe(false);
    expect(atTarget.instances).toBe(20);
    expect(atTarget.note).toContain('the target needs 11904762');
    expect(atTarget.note).toContain('raise the quota in the Service Quotas console');
  });
});

describe('candidateAtTarget: serverless', () => {
  const SERVERLESS: SizingCandidate = {
    kind: 'serverless',
    measuredInstances: 1,
    sustainableTps: 40,
    meanLatencyMs: 50,
    serverless: { memorySizeMb: 2048, maxConcurrency: 50 },
  };

  it('prices the target as requests × mean duration × memory and counts the requests in flight', () => {
    // Act
    const atTarget = candidateAtTarget(SERVERLESS, SETTINGS);

    // Assert: 600 × 0.05 s = 30 in flight; 600 × 3600 × 0.05 s × 2 GB × $0.00002 = $4.32/h
    expect(atTarget).toEqual({
      targetTps: 600,
      canServe: true,
      concurrency: 30,
      usdPerHour: 4.32,
      costPer1MUsd: 2,
      note: '600 TPS × 50 ms mean latency keeps 30 requests in flight',
    });
  });

  it('refuses a target beyond its maxConcurrency, naming the concurrency it needs', () => {
    // Act
    const atTarget = candidateAtTarget(
      { ...SERVERLESS, serverless: { memorySizeMb: 2048, maxConcurrency: 10 } },
      SETTINGS,
    );

    // Assert
    expect(atTarget.canServe).toBe(false);
    expect(atTarget.note).toBe(
      '600 TPS × 50 ms mean latency keeps 30 requests in flight; more than its maxConcurrency of 10: raise it to 30 and test again',
    );
  });

  it('refuses a target beyond the 200 concurrent invocations any serverless endpoint can have', () => {
    // Act
    const atTarget = candidateAtTarget(SERVERLESS, { ...SETTINGS, targetTps: 5000 });

    // Assert
    expect(atTarget.canServe).toBe(false);
    expect(atTarget.note).toBe(
      '5000 TPS × 50 ms mean latency keeps 250 requests in flight; more than the 200 concurrent invocations ' +
        'a serverless endpoint can be given: serve this target on instances',
    );
  });
});

describe('costAtTargetKey', () => {
  it('ranks a candidate that cannot carry the target after every one that can', () => {
    // Prepare
    const refused = candidateAtTarget(C5_XLARGE, { ...SETTINGS, instanceQuotas: { 'ml.c5.xlarge': 5 } });

    // Act
    const key = costAtTargetKey(refused);

    // Assert
    expect(key).toBe(Number.POSITIVE_INFINITY);
  });
});
