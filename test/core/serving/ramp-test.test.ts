import { describe, expect, it } from '@jest/globals';
import { resourceName } from '../../../core/contracts/names.js';
import type {
  PlannedCandidate,
  RampRequest,
  RampTestPlan,
} from '../../../core/contracts/optimization-state.js';
import {
  rampDecision,
  rampLoadPlan,
  retestRequest,
  scalingRequestsFor,
} from '../../../core/serving/ramp-test.js';
import { type ScalingPolicy, scalingPolicyFor } from '../../../core/serving/scaling-policy.js';
import { checkRealtimeScalingRequests } from '../../../local/platform/realtime-scaling-requests.js';
import { plannedCandidate, SAMPLE_LOAD_PLAN } from '../../../bench/fixtures/sample-report.js';
import { type LoadPlan, loadPlanSchema } from '../../../core/contracts/load-plan.js';

const RUN_ID = 'nightly-2026-11-22';
const WINNER = plannedCandidate('large', 'ml.c5.large', 0.102);
const RAMP_ENDPOINT = resourceName(RUN_ID, 'endpoint', 'large-ramp');
const RAMP_RESOURCE_ID = `endpoint/${RAMP_ENDPOINT}/variant/AllTraffic`;
const RAMP_TEST: RampTestPlan = { enabled: true, seconds: 600, workers: 2 };

/** The report's policy for the winner: 100 TPS per instance at headroom 0.7, 2–9 instances for 600 TPS. */
function policyFor(minInstances = 2, perInstanceTps = 100): ScalingPolicy {
  return scalingPolicyFor({
    endpointName: WINNER.endpointName,
    variantName: 'AllTraffic',
    perInstanceTps,
    headroom: 0.7,
    minInstances,
    peakTps: 600,
    scaleInCooldownSeconds: 300,
    scaleOutCooldownSeconds: 60,
  });
}

/** The plan "Validate and plan" wrote: a 600 TPS target and a 600 s ramp by default. */
function plan(
  overrides: {
    readonly targetTps?: number;
    readonly rampTest?: RampTestPlan | undefined;
    readonly peakTps?: number;
  } = {},
) {
  return {
    runId: RUN_ID,
    loadPlan: SAMPLE_LOAD_PLAN,
    sla: { p95LatencyMs: 20, maxErrorRate: 0.01, targetTps: overrides.targetTps ?? 600 },
    ...('rampTest' in overrides ? {} : { rampTest: RAMP_TEST }),
    ...(overrides.rampTest === undefined ? {} : { rampTest: overrides.rampTest }),
    ...(overrides.peakTps === undefined ? {} : { scaling: { peakTps: overrides.peakTps } }),
  };
}

/** What "Recommend" chose: the candidate and its policy; no per-instance rate without a policy. */
function chosen(candidate: PlannedCandidate, policy: ScalingPolicy | undefined) {
  return { candidate, policy, perInstanceTps: policy === undefined ? undefined : 100, headroom: 0.7 };
}

describe('rampDecision', () => {
  it('is off without a target', () => {
    // Act
    const decision = rampDecision(
      {
        runId: RUN_ID,
        loadPlan: SAMPLE_LOAD_PLAN,
        sla: { p95LatencyMs: 20, maxErrorRate: 0.01 },
        rampTest: RAMP_TEST,
      },
      chosen(WINNER, policyFor()),
    );

    // Assert
    expect(decision).toEqual({ off: true });
  });

  it('is off when the plan has no ramp test', () => {
    // Act
    const decision = rampDecision(plan({ rampTest: undefined }), chosen(WINNER, policyFor()));

    // Assert
    expect(decision).toEqual({ off: true });
  });

  it('is off when the ramp test is not enabled', () => {
    // Act
    const decision = rampDecision(
      plan({ rampTest: { ...RAMP_TEST, enabled: false } }),
      chosen(WINNER, policyFor()),
    );

    // Assert
    expect(decision).toEqual({ off: true });
  });

  it('refuses without a candidate that carries the target, saying so', () => {
    // Act
    const decision = rampDecision(plan(), undefined);

    // Assert
    expect(decision).toEqual({ skipped: 'no candidate that met the SLA can carry the target' });
  });

  it('refuses an existing endpoint: the run attaches no policy to it', () => {
    // Prepare
    const existing = plannedCandidate('yours', 'ml.c5.large', 0.102, { kind: 'existing' });

    // Act
    const decision = rampDecision(plan(), chosen(existing, policyFor()));

    // Assert
    expect(decision).toEqual({
      skipped: 'yours is your endpoint: the run does not attach a policy to it',
    });
  });

  it('refuses a serverless candidate: it has no instance-count policy', () => {
    // Prepare
    const serverless = plannedCandidate('sls', 'ml.c5.large', 0.102, {
      kind: 'serverless',
      serverless: { memorySizeMb: 2048, maxConcurrency: 20 },
    });

    // Act
    const decision = rampDecision(plan(), chosen(serverless, undefined));

    // Assert
    expect(decision).toEqual({
      skipped: 'sls has no instance-count policy to ramp (serverless scales itself)',
    });
  });

  it('refuses a real-time candidate without a policy', () => {
    // Act
    const decision = rampDecision(plan(), chosen(WINNER, undefined));

    // Assert
    expect(decision).toEqual({
      skipped: 'large has no instance-count policy to ramp (serverless scales itself)',
    });
  });

  it('refuses when the minimum carries the peak at the policy’s target: nothing would scale out', () => {
    // Act: 9 × 100 TPS × 0.7 = 630 TPS ≥ 600.
    const decision = rampDecision(plan(), chosen(WINNER, policyFor(9)));

    // Assert
    expect(decision).toEqual({
      skipped:
        "the minimum (9 instances) carries the peak (600 TPS) at the policy's target (630 TPS): a ramp would not scale out",
    });
  });

  it('refuses when the minimum carries exactly the peak', () => {
    // Act: 2 × 100 TPS × 0.7 = 140 TPS, the peak.
    const decision = rampDecision(plan({ targetTps: 140 }), chosen(WINNER, policyFor()));

    // Assert
    expect(decision).toEqual({
      skipped:
        "the minimum (2 instances) carries the peak (140 TPS) at the policy's target (140 TPS): a ramp would not scale out",
    });
  });

  it('asks for the winner at the policy’s minimum, from its rate at the target to the target, the policy aimed at it', () => {
    // Act
    const decision = rampDecision(plan(), chosen(WINNER, policyFor()));

    // Assert: 2 × 100 TPS × 0.7 = 140 TPS to the target's 600.
    expect(decision).toEqual({
      request: {
        candidate: {
          ...WINNER,
          id: 'large-ramp',
          initialInstanceCount: 2,
          proofOf: 'large',
          modelName: resourceName(RUN_ID, 'model', 'large-ramp'),
          endpointConfigName: resourceName(RUN_ID, 'endpoint-config', 'large-ramp'),
          endpointName: RAMP_ENDPOINT,
          estimatedCostUsd: 0,
        },
        loadPlan: rampLoadPlan(SAMPLE_LOAD_PLAN, { fromTps: 140, toTps: 600, seconds: 600, workers: 2 }),
        fromTps: 140,
        toTps: 600,
        perInstanceTps: 100,
        headroom: 0.7,
        minInstances: 2,
        maxInstances: 9,
        targetInvocationsPerInstance: 4200,
        scaling: {
          registerScalableTarget: {
            ServiceNamespace: 'sagemaker',
            ResourceId: RAMP_RESOURCE_ID,
            ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
            MinCapacity: 2,
            MaxCapacity: 9,
          },
          putScalingPolicy: {
            PolicyName: `${RAMP_ENDPOINT}-invocations-per-instance`,
            ServiceNamespace: 'sagemaker',
            ResourceId: RAMP_RESOURCE_ID,
            ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
            PolicyType: 'TargetTrackingScaling',
            TargetTrackingScalingPolicyConfiguration: {
              TargetValue: 4200,
              PredefinedMetricSpecification: {
                PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance',
              },
              ScaleInCooldown: 300,
              ScaleOutCooldown: 60,
            },
          },
        },
      },
    });
  });

  it('names the ramp’s resources after the run and the winner, apart from the winner’s own', () => {
    // Act
    const decision = rampDecision(plan(), chosen(WINNER, policyFor()));

    // Assert
    if (!('request' in decision)) throw new Error(`expected a request, got ${JSON.stringify(decision)}`);
    expect(decision.request.candidate.endpointName).toBe('mso-nightly-2026-11-22-5ba5dc63-ep-large-ramp');
    expect(decision.request.candidate.endpointName).not.toBe(WINNER.endpointName);
  });

  it('rounds the starting rate to two decimals', () => {
    // Prepare: 2 × 33.333 TPS × 0.7 = 46.6662 TPS.
    const policy = policyFor(2, 33.333);

    // Act
    const decision = rampDecision(plan(), {
      candidate: WINNER,
      policy,
      perInstanceTps: 33.333,
      headroom: 0.7,
    });

    // Assert
    if (!('request' in decision)) throw new Error(`expected a request, got ${JSON.stringify(decision)}`);
    expect(decision.request.fromTps).toBe(46.67);
    expect(decision.request.loadPlan.ramp).toEqual({ fromTps: 46.67 });
  });

  it('ramps to the stated peak rather than the target', () => {
    // Act
    const decision = rampDecision(plan({ peakTps: 900 }), chosen(WINNER, policyFor()));

    // Assert
    if (!('request' in decision)) throw new Error(`expected a request, got ${JSON.stringify(decision)}`);
    expect(decision.request.toTps).toBe(900);
    expect(decision.request.loadPlan.steps).toEqual([900]);
  });
});

/** A closed-model plan with every setting a ramp drops. */
const STEPPED_PLAN: LoadPlan = {
  ...SAMPLE_LOAD_PLAN,
  maxRequestsPerStep: 50_000,
  maxTotalRequests: 200_000,
  extendUntilSaturated: true,
  maxLoad: 64,
  kneeProbes: 3,
  repeats: 3,
  interleaveRepeats: true,
};

describe('rampLoadPlan', () => {
  it('plans one open-model ramp step after the plan’s warm-up, without caps, extension or rounds', () => {
    // Act
    const ramp = rampLoadPlan(STEPPED_PLAN, { fromTps: 140, toTps: 600, seconds: 600, workers: 2 });

    // Assert: the warm-up (5 s), timeouts and connections kept; 5 + 600 s in all.
    expect(ramp).toEqual({
      model: 'open',
      steps: [600],
      ramp: { fromTps: 140 },
      warmupSeconds: 5,
      stepDurationSeconds: 600,
      workers: 2,
      maxTotalSeconds: 605,
      requestTimeoutMs: 65_000,
      stopAtPlateau: false,
      plateauGain: 1.05,
      maxInFlight: 256,
      lateToleranceMs: 10,
      kneeProbes: 0,
      repeats: 1,
    });
  });

  it('gives a plan the load plan schema accepts as it is, ramp rules included', () => {
    // Prepare
    const ramp = rampLoadPlan(STEPPED_PLAN, { fromTps: 140, toTps: 600, seconds: 600, workers: 2 });

    // Act
    const parsed = loadPlanSchema.safeParse(ramp);

    // Assert
    expect(parsed.error?.issues).toBeUndefined();
    expect(parsed.data).toEqual(ramp);
  });

  it('drops what the schema refuses with a ramp (the stepped plan with a ramp added is refused)', () => {
    // Act: the control: the same plan with only `ramp` set.
    const parsed = loadPlanSchema.safeParse({ ...STEPPED_PLAN, ramp: { fromTps: 140 } });

    // Assert
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual([
      'model',
      'steps',
      'extendUntilSaturated',
      'kneeProbes',
      'repeats',
    ]);
  });
});

describe('scalingRequestsFor', () => {
  it('aims the policy’s requests at another endpoint, figures unchanged, as Application Auto Scaling accepts them', () => {
    // Prepare
    const policy = policyFor();

    // Act
    const requests = scalingRequestsFor(policy, RAMP_ENDPOINT, 'AllTraffic');

    // Assert
    expect(checkRealtimeScalingRequests(requests)).toEqual({
      endpointName: RAMP_ENDPOINT,
      variantName: 'AllTraffic',
      policy: {
        minInstanceCount: 2,
        maxInstanceCount: 9,
        targetInvocationsPerInstance: 4200,
        scaleInCooldownSeconds: 300,
        scaleOutCooldownSeconds: 60,
      },
    });
  });

  it('rewrites only ResourceId and PolicyName', () => {
    // Prepare
    const policy = policyFor();

    // Act
    const requests = scalingRequestsFor(policy, RAMP_ENDPOINT, 'AllTraffic');

    // Assert
    expect(requests).toEqual({
      registerScalableTarget: { ...policy.registerScalableTarget, ResourceId: RAMP_RESOURCE_ID },
      putScalingPolicy: {
        ...policy.putScalingPolicy,
        ResourceId: RAMP_RESOURCE_ID,
        PolicyName: `${RAMP_ENDPOINT}-invocations-per-instance`,
      },
    });
  });
});

describe('retestRequest', () => {
  /** The first ramp's request, as `rampDecision` made it for the winner's policy. */
  function firstRequest(): RampRequest {
    const decision = rampDecision(plan(), chosen(WINNER, policyFor()));
    if (!('request' in decision)) throw new Error('no request');
    return decision.request;
  }

  it('ramps again at the headroom that would have held, the policy recomputed, as <winner>-ramp-2', () => {
    // Act
    const retest = retestRequest(RUN_ID, firstRequest(), { wouldHold: 0.5 }, undefined);

    // Assert: 100 TPS × 0.5 per instance: 2 carry 100 TPS, 12 the 600 TPS peak; target 3,000 a minute.
    const endpoint = resourceName(RUN_ID, 'endpoint', 'large-ramp-2');
    expect(retest).toMatchObject({
      attempt: 2,
      headroom: 0.5,
      fromTps: 100,
      toTps: 600,
      minInstances: 2,
      maxInstances: 12,
      targetInvocationsPerInstance: 3000,
      candidate: { id: 'large-ramp-2', endpointName: endpoint, initialInstanceCount: 2, proofOf: 'large' },
      loadPlan: { steps: [600], ramp: { fromTps: 100 } },
    });
    expect(checkRealtimeScalingRequests(retest?.scaling ?? firstRequest().scaling)).toMatchObject({
      endpointName: endpoint,
      variantName: 'AllTraffic',
    });
    expect(retest?.scaling.putScalingPolicy.TargetTrackingScalingPolicyConfiguration).toEqual({
      TargetValue: 3000,
      PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
      ScaleInCooldown: 300,
      ScaleOutCooldown: 60,
    });
  });

  it('ramps again from the minimum that would have held when no headroom would', () => {
    // Act
    const retest = retestRequest(
      RUN_ID,
      firstRequest(),
      { wouldHold: null, minInstancesThatHold: 4 },
      undefined,
    );

    // Assert
    expect(retest).toMatchObject({
      headroom: 0.7,
      minInstances: 4,
      fromTps: 280,
      candidate: { initialInstanceCount: 4 },
    });
  });

  it('asks for nothing when the advice changes nothing (the lag was not the cause)', () => {
    // Act
    const retest = retestRequest(RUN_ID, firstRequest(), { wouldHold: 0.7 }, undefined);

    // Assert
    expect(retest).toBeUndefined();
  });

  it('asks for nothing when the lag is unknown', () => {
    // Act
    const retest = retestRequest(RUN_ID, firstRequest(), { wouldHold: null }, undefined);

    // Assert
    expect(retest).toBeUndefined();
  });

  it('asks for nothing when the advised minimum carries the peak: nothing would scale out', () => {
    // Act
    const retest = retestRequest(
      RUN_ID,
      firstRequest(),
      { wouldHold: null, minInstancesThatHold: 9 },
      undefined,
    );

    // Assert
    expect(retest).toBeUndefined();
  });

  it('keeps the maximum within the account’s quota for the type', () => {
    // Act
    const retest = retestRequest(RUN_ID, firstRequest(), { wouldHold: 0.5 }, 6);

    // Assert
    expect(retest?.maxInstances).toBe(6);
  });
});
