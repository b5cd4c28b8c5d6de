import type {
  CandidateOutcome,
  PlannedCandidate,
  RunPlan,
} from '../../../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  emptyErrorCounts,
  encodeHistogram,
  type ErrorCounts,
  type ErrorSample,
  latencyPercentilesMs,
  type LoadTestResult,
  pickSustainable,
  recordLatencyUs,
  slaBreaches,
  type StepResult,
  type StepStall,
  totalErrors,
} from '../../../../core/load-test/index.js';
import { buildReport } from '../../../../core/report/build-report.js';
import type { Report } from '../../../../core/report/report.js';
import type { LoadPlan } from '../../../../core/contracts/load-plan.js';
import type { LatencySla } from '../../../../core/contracts/latency-sla.js';

/**
 * A realistic report built the way the Recommend step builds it: load-test results with real
 * encoded histograms go through buildReport, so the renderers see the figures a run produces.
 */

export const XSS_VALUE = '<img src=x onerror=alert(1)>';

export const SAMPLE_SLA: LatencySla = {
  p95LatencyMs: 20,
  p99LatencyMs: 40,
  maxErrorRate: 0.01,
  targetTps: 1000,
};

export const SAMPLE_LOAD_PLAN: LoadPlan = {
  model: 'closed',
  steps: [1, 2, 4, 8, 16],
  warmupSeconds: 5,
  stepDurationSeconds: 30,
  workers: 1,
  maxTotalSeconds: 900,
  requestTimeoutMs: 65_000,
  stopAtPlateau: true,
  plateauGain: 1.05,
  maxInFlight: 256,
  lateToleranceMs: 10,
};

export interface StepShape {
  readonly load: number;
  readonly tps: number;
  /** Median latency; the distribution spreads ±25 % around it with a tail above the 90th percentile. */
  readonly medianMs: number;
  /** Added to the slowest 10 % of requests, growing linearly to the maximum. */
  readonly tailMs: number;
  readonly errors?: Partial<ErrorCounts>;
  readonly errorSamples?: readonly ErrorSample[];
  /** The endpoint stopped answering in the step (load-test/stall.ts). */
  readonly stall?: StepStall;
}

const SAMPLES_PER_STEP = 400;

export function stepResult(shape: StepShape, sla: LatencySla = SAMPLE_SLA): StepResult {
  const windowSeconds = SAMPLE_LOAD_PLAN.stepDurationSeconds;
  const histogram = createLatencyHistogram();
  for (let i = 0; i < SAMPLES_PER_STEP; i += 1) {
    const q = (i + 0.5) / SAMPLES_PER_STEP;
    const tail = q > 0.9 ? ((q - 0.9) / 0.1) * shape.tailMs : 0;
    recordLatencyUs(histogram, (shape.medianMs * (0.75 + 0.5 * q) + tail) * 1000);
  }
  const errors = { ...emptyErrorCounts(), ...shape.errors };
  const ok = Math.round(shape.tps * windowSeconds);
  const requests = ok + totalErrors(errors);
  const figures = {
    requests,
    dropped: 0,
    errorRate: requests === 0 ? 0 : totalErrors(errors) / requests,
    latencyMs: ok === 0 ? { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 } : latencyPercentilesMs(histogram),
    windowSeconds,
    ...(shape.stall === undefined ? {} : { stall: shape.stall }),
  };
  const breaches = slaBreaches(figures, sla);
  return {
    ...figures,
    load: shape.load,
    loadKind: 'concurrency',
    tps: shape.tps,
    errors,
    errorSamples: shape.errorSamples ?? [],
    late: 0,
    workers: 1,
    meetsSla: breaches.length === 0,
    slaBreaches: breaches,
    histogram: encodeHistogram(ok === 0 ? createLatencyHistogram() : histogram),
  };
}

export function loadTestResult(
  steps: readonly StepResult[],
  targetTps = SAMPLE_SLA.targetTps,
): LoadTestResult {
  const sustainable = pickSustainable(steps);
  const breach = steps.find((step) => !step.meetsSla);
  const start = Date.parse('2026-11-22T10:00:00Z');
  return {
    schemaVersion: 1,
    model: 'closed',
    workers: 1,
    startEpochMs: start,
    finishedEpochMs: start + steps.length * 35_000,
    steps,
    sustainableTps: sustainable?.tps ?? null,
    sustainableStep: sustainable?.load ?? null,
    meetsTargetTps: targetTps === undefined ? null : (sustainable?.tps ?? 0) >= targetTps,
    stoppedBecause:
      breach === undefined ? 'completed' : breach.stall === undefined ? 'sla-breached' : 'stalled',
    stopDetail: breach === undefined ? 'all steps ran' : breach.slaBreaches.join('; '),
  };
}

export function plannedCandidate(
  id: string,
  instanceType: string,
  usdPerHour: number,
  extra: Partial<PlannedCandidate> = {},
): PlannedCandidate {
  return {
    id,
    kind: 'realtime',
    instanceType,
    initialInstanceCount: 1,
    environment: {},
    modelName: `mso-run-ab12cd34-m-${id}`,
    endpointConfigName: `mso-run-ab12cd34-ec-${id}`,
    endpointName: `mso-run-ab12cd34-ep-${id}`,
    usdPerHour,
    priceSource: 'price-table',
    estimatedCostUsd: 0.05,
    ...extra,
  };
}

export function runPlan(candidates: readonly PlannedCandidate[], extra: Partial<RunPlan> = {}): RunPlan {
  return {
    runId: 'nightly-2026-11-22',
    name: 'resnet-ish CNN',
    artifactsBucket: 'mso-artifacts',
    runPrefixUri: 's3://mso-artifacts/runs/nightly-2026-11-22/',
    payloads: [
      {
        uri: 's3://user-models/cnn/payload.json',
        contentType: 'application/json',
        weight: 1,
        sizeBytes: 12_000,
      },
    ],
    compilations: [],
    compilationMaxRuntimeSeconds: 900,
    candidates,
    loadPlan: SAMPLE_LOAD_PLAN,
    sla: SAMPLE_SLA,
    objective: 'lowest-cost-per-1m',
    cleanupPolicy: 'delete-all',
    maxConcurrentCandidates: 2,
    tags: {},
    estimate: {
      totalUsd: 0.4,
      priceTable: {
        url: 'https://aws.amazon.com/sagemaker/pricing/',
        region: 'us-east-1',
        kind: 'Real-Time Inference, on-demand, per instance-hour',
        recordedOn: '2025-10-01',
      },
      assumptions: [],
    },
    ...extra,
  };
}

export interface SampleEntry {
  readonly candidate: PlannedCandidate;
  /** Load steps of a measured candidate; leave out for a failed or skipped one. */
  readonly steps?: readonly StepShape[];
  /** Outcome of an unmeasured candidate; a measured one gets a MEASURED outcome with a result URI. */
  readonly outcome?: CandidateOutcome;
}

export interface SampleOptions {
  readonly measuredLocally?: boolean;
  readonly plan?: Partial<RunPlan>;
}

/** Builds a report the way the Recommend step does, from planned candidates and their load steps. */
export function reportFrom(entries: readonly SampleEntry[], options: SampleOptions = {}): Report {
  const plan = runPlan(
    entries.map((entry) => entry.candidate),
    options.plan,
  );
  const results = new Map<string, LoadTestResult>();
  const outcomes: CandidateOutcome[] = [];
  for (const { candidate, steps, outcome } of entries) {
    if (steps === undefined) {
      outcomes.push(outcome ?? { candidateId: candidate.id, status: 'FAILED' });
      continue;
    }
    results.set(
      candidate.id,
      loadTestResult(
        steps.map((shape) => stepResult(shape, plan.sla)),
        plan.sla.targetTps,
      ),
    );
    outcomes.push({
      candidateId: candidate.id,
      status: 'MEASURED',
      resultUri: `${plan.runPrefixUri}load-test/${candidate.id}/result.json`,
    });
  }
  return buildReport({
    plan,
    outcomes,
    results,
    measuredLocally: options.measuredLocally ?? true,
    generatedAt: '2026-11-22T10:30:00.000Z',
  });
}

/**
 * Six candidates covering every verdict: a compiled winner, a runner-up, two that missed the SLA
 * (one through latency, one through model errors with an environment value that is an XSS probe),
 * one whose endpoint failed and one skipped.
 */
export function sampleReport(options: SampleOptions = {}): Report {
  return reportFrom(
    [
      {
        candidate: plannedCandidate('c1-c5-xlarge', 'ml.c5.xlarge', 0.204, {
          environment: { OMP_NUM_THREADS: '4' },
        }),
        steps: [
          { load: 1, tps: 72, medianMs: 13, tailMs: 4 },
          { load: 2, tps: 138, medianMs: 13.8, tailMs: 5 },
          { load: 4, tps: 236, medianMs: 16.5, tailMs: 9 },
          { load: 8, tps: 262, medianMs: 29, tailMs: 20 },
        ],
      },
      {
        candidate: plannedCandidate('c2-c5-xlarge-neo', 'ml.c5.xlarge', 0.204, {
          compiledFor: 'ml_c5',
          environment: { OMP_NUM_THREADS: '4' },
        }),
        steps: [
          { load: 1, tps: 160, medianMs: 6.1, tailMs: 2 },
          { load: 2, tps: 310, medianMs: 6.3, tailMs: 2.5 },
          { load: 4, tps: 560, medianMs: 7, tailMs: 4 },
          { load: 8, tps: 640, medianMs: 12, tailMs: 8 },
          { load: 16, tps: 655, medianMs: 24, tailMs: 18 },
        ],
      },
      {
        candidate: plannedCandidate('c3-m5-large', 'ml.m5.large', 0.115, {
          environment: { OMP_NUM_THREADS: '2' },
        }),
        steps: [
          { load: 1, tps: 58, medianMs: 16.8, tailMs: 3 },
          { load: 2, tps: 101, medianMs: 19.5, tailMs: 6 },
        ],
      },
      {
        candidate: plannedCandidate('c4-c5-large', 'ml.c5.large', 0.102, {
          environment: { SAGEMAKER_MODEL_SERVER_WORKERS: XSS_VALUE, PIPE: 'a|b' },
        }),
        steps: [
          {
            load: 1,
            tps: 30,
            medianMs: 9,
            tailMs: 3,
            errors: { modelError: 600 },
            errorSamples: [
              {
                kind: 'model-error',
                statusCode: 500,
                message: `worker count ${XSS_VALUE} is not a number | traceback…`,
              },
            ],
          },
        ],
      },
      {
        candidate: plannedCandidate('c5-g4dn-xlarge', 'ml.g4dn.xlarge', 0.736),
        outcome: {
          candidateId: 'c5-g4dn-xlarge',
          status: 'FAILED',
          error: {
            Error: 'EndpointFailedError',
            Cause: JSON.stringify({
              errorType: 'EndpointFailedError',
              errorMessage: 'endpoint mso-run-ab12cd34-ep-c5-g4dn-xlarge is Failed: ResourceLimitExceeded',
            }),
          },
        },
      },
      {
        candidate: plannedCandidate('c6-inf1-xlarge', 'ml.inf1.xlarge', 0.297, { compiledFor: 'ml_inf1' }),
        outcome: {
          candidateId: 'c6-inf1-xlarge',
          status: 'SKIPPED',
          skipReason: 'compilation for ml_inf1 failed',
        },
      },
    ],
    options,
  );
}
