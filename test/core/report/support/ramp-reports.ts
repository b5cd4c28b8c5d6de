import type { TimelineBucket } from '../../../../core/load-test/results.js';
import type { Report } from '../../../../core/report/report.js';
import { type InstanceCountPoint, type RampInput, rampOutcome } from '../../../../core/serving/ramp.js';
import type { ServeTargetRamp } from '../../../../core/serving/ramp-test.js';
import { plannedCandidate, reportFrom, SAMPLE_SLA } from './sample-report.js';

/**
 * A "Serve 600 TPS" report and the ramps of its policy, built the way the ramp phase builds them
 * (ramp.ts `rampOutcome` over a timeline and an instance series). The serve target is 9 ×
 * ml.c5.large at 100 TPS each, headroom 0.7, from 2 to 9 instances; the ramp runs from what 2
 * carry at the target (140 TPS) to 600 TPS over 600 s, in ten 60 s buckets offering 163 + 46 i TPS.
 * Used by the unit tests and by bench/report-render-check.ts.
 */

export const RAMP_START_MS = Date.UTC(2026, 10, 22, 10, 0, 0);

const FAST = { p50: 8, p90: 11, p95: 12, p99: 18, max: 30 };
const SLOW = { p50: 21, p90: 38, p95: 45, p99: 80, max: 160 };

function bucket(index: number, overrides: Partial<TimelineBucket> = {}): TimelineBucket {
  const offeredTps = 163 + 46 * index;
  return {
    fromSeconds: index * 60,
    seconds: 60,
    offeredTps,
    tps: offeredTps,
    requests: offeredTps * 60,
    errors: 0,
    dropped: 0,
    errorRate: 0,
    latencyMs: FAST,
    ...overrides,
  };
}

/**
 * 2 instances; 2 more launched at 140 s, in service at 200 s; 3 more from 340 s, in at 400 s; 2
 * more from 480 s, in at 540 s.
 */
export const RAMP_INSTANCES: readonly InstanceCountPoint[] = [
  { atEpochMs: RAMP_START_MS - 1000, inService: 2 },
  { atEpochMs: RAMP_START_MS + 140_000, inService: 2, starting: 2 },
  { atEpochMs: RAMP_START_MS + 200_000, inService: 4 },
  { atEpochMs: RAMP_START_MS + 340_000, inService: 4, starting: 3 },
  { atEpochMs: RAMP_START_MS + 400_000, inService: 7 },
  { atEpochMs: RAMP_START_MS + 480_000, inService: 7, starting: 2 },
  { atEpochMs: RAMP_START_MS + 540_000, inService: 9 },
];

/** Every bucket within the SLA. */
export function heldTimeline(): TimelineBucket[] {
  return Array.from({ length: 10 }, (_, index) => bucket(index));
}

/**
 * Buckets 1–3 over the p95 bound (2 instances carry 200 TPS; the ramp passes it before the first
 * scale-out is in service) and 5 % errors in bucket 6: 4 minutes broken.
 */
export function brokenTimeline(): TimelineBucket[] {
  return Array.from({ length: 10 }, (_, index) => {
    if (index >= 1 && index <= 3) {
      const offeredTps = 163 + 46 * index;
      return bucket(index, { latencyMs: SLOW, tps: Math.min(offeredTps, 200) });
    }
    if (index === 6) return bucket(index, { errors: 1317, errorRate: 0.05, tps: 417 });
    return bucket(index);
  });
}

export function rampInput(overrides: Partial<RampInput> = {}): RampInput {
  return {
    timeline: heldTimeline(),
    rampStartEpochMs: RAMP_START_MS,
    fromTps: 140,
    toTps: 600,
    sla: SAMPLE_SLA,
    instances: RAMP_INSTANCES,
    usdPerInstanceHour: 0.102,
    perInstanceTps: 100,
    headroom: 0.7,
    minInstances: 2,
    ...overrides,
  };
}

/** The report's ramp as "Record ramp" would write it, around an outcome. */
export function serveTargetRamp(
  overrides: Partial<ServeTargetRamp> & Pick<ServeTargetRamp, 'status' | 'note'>,
): ServeTargetRamp {
  return {
    candidateId: 'large',
    instanceType: 'ml.c5.large',
    fromTps: 140,
    toTps: 600,
    minInstances: 2,
    maxInstances: 9,
    targetInvocationsPerInstance: 4200,
    instancesNote: 'counted by the local routing front',
    ...overrides,
  };
}

export function heldRamp(): ServeTargetRamp {
  return serveTargetRamp({
    status: 'held',
    note: 'held: the SLA held from 140 to 600 TPS over 600 s',
    outcome: rampOutcome(rampInput()),
  });
}

export function notHeldRamp(): ServeTargetRamp {
  return serveTargetRamp({
    status: 'not-held',
    note: 'not held: the SLA broke for 4 min of the 10 min ramp',
    outcome: rampOutcome(rampInput({ timeline: brokenTimeline() })),
  });
}

/** The report the serve-target tests use: one candidate, 100 TPS per instance, 600 TPS target. */
export function serveTargetReport(): Report {
  return reportFrom(
    [
      {
        candidate: plannedCandidate('large', 'ml.c5.large', 0.102),
        steps: [
          { load: 1, tps: 60, medianMs: 10, tailMs: 2 },
          { load: 2, tps: 100, medianMs: 12, tailMs: 2 },
          { load: 4, tps: 105, medianMs: 30, tailMs: 20 },
        ],
      },
    ],
    { plan: { sla: { ...SAMPLE_SLA, targetTps: 600 } }, measuredLocally: false },
  );
}

/** The report with the ramp under `serveTarget.ramp`. */
export function withRamp(report: Report, ramp: ServeTargetRamp): Report {
  const st = report.serveTarget;
  if (st === undefined) throw new Error('the report has no serveTarget');
  return { ...report, serveTarget: { ...st, ramp } };
}

/** A report whose ramp broke the SLA, for the renderers and the render check. */
export function rampReport(): Report {
  return withRamp(serveTargetReport(), notHeldRamp());
}
