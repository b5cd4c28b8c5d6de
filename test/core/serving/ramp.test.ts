import { describe, expect, it } from '@jest/globals';
import type { TimelineBucket } from '../../../core/load-test/results.js';
import { rampOutcome, type RampInput } from '../../../core/serving/ramp.js';
import { parseSla } from '../../../core/contracts/latency-sla.js';

const START_MS = Date.UTC(2026, 0, 1);
const SLA = parseSla({ p95LatencyMs: 100 });

/** A 10-minute ramp from 20 to 120 TPS in 60 s buckets: bucket i offers 25 + 10 i TPS. */
function bucket(index: number, overrides: Partial<TimelineBucket> = {}): TimelineBucket {
  const offeredTps = 25 + 10 * index;
  return {
    fromSeconds: index * 60,
    seconds: 60,
    offeredTps,
    tps: offeredTps,
    requests: offeredTps * 60,
    errors: 0,
    dropped: 0,
    errorRate: 0,
    latencyMs: { p50: 20, p90: 40, p95: 50, p99: 80, max: 120 },
    ...overrides,
  };
}

const SLOW = { latencyMs: { p50: 90, p90: 200, p95: 250, p99: 400, max: 900 } };

/** 2 instances; 2 more launched at 180 s, in service at 240 s; 2 more from 420 s, in at 480 s. */
const INSTANCES = [
  { atEpochMs: START_MS - 1000, inService: 2 },
  { atEpochMs: START_MS + 180_000, inService: 2, starting: 2 },
  { atEpochMs: START_MS + 240_000, inService: 4 },
  { atEpochMs: START_MS + 420_000, inService: 4, starting: 2 },
  { atEpochMs: START_MS + 480_000, inService: 6 },
];

function input(overrides: Partial<RampInput> = {}): RampInput {
  return {
    timeline: Array.from({ length: 10 }, (_, index) => bucket(index)),
    rampStartEpochMs: START_MS,
    fromTps: 20,
    toTps: 120,
    sla: SLA,
    instances: INSTANCES,
    usdPerInstanceHour: 0.12,
    perInstanceTps: 25,
    headroom: 0.6,
    minInstances: 2,
    ...overrides,
  };
}

/** The ramp of `input()` with p95 over the SLA in buckets 2 and 3, 5 % errors in bucket 6. */
function brokenTimeline(): TimelineBucket[] {
  return Array.from({ length: 10 }, (_, index) => {
    if (index === 2 || index === 3) return bucket(index, SLOW);
    if (index === 6) return bucket(index, { errors: 171, errorRate: 0.05 });
    return bucket(index);
  });
}

describe('rampOutcome', () => {
  it('counts the minutes of the buckets that broke the SLA, consecutive ones as one breach', () => {
    // Act
    const outcome = rampOutcome(input({ timeline: brokenTimeline() }));

    // Assert
    expect(outcome.slaBrokenSeconds).toBe(180);
    expect(outcome.slaBrokenMinutes).toBe(3);
    expect(outcome.held).toBe(false);
    expect(outcome.breaches).toEqual([
      { fromSeconds: 120, toSeconds: 240, reasons: ['p95 250.000 ms > SLA 100 ms'] },
      { fromSeconds: 360, toSeconds: 420, reasons: ['error rate 5.00% > SLA 1.00%'] },
    ]);
  });

  it('times each scale-out from the bucket where the rate per instance passed the policy’s target', () => {
    // Act
    const outcome = rampOutcome(input());

    // Assert: the target is 25 × 0.6 = 15 TPS per instance: 35 TPS on 2 at 60 s, 65 on 4 at 240 s.
    expect(outcome.scaleOuts).toEqual([
      { atSeconds: 240, fromInstances: 2, toInstances: 4, triggerSeconds: 60, secondsToScaleOut: 180 },
      { atSeconds: 480, fromInstances: 4, toInstances: 6, triggerSeconds: 240, secondsToScaleOut: 240 },
    ]);
  });

  it('prices the instances billed over the ramp, starting ones included', () => {
    // Act
    const outcome = rampOutcome(input());

    // Assert: 2 × 180 + 4 × 60 + 4 × 180 + 6 × 60 + 6 × 120 = 2400 instance-seconds at $0.12/h.
    expect(outcome.instanceSeconds).toBe(2400);
    expect(outcome.costUsd).toBe(0.08);
  });

  it('says which headroom would have held the slowest scale-out’s lag', () => {
    // Act
    const outcome = rampOutcome(input({ timeline: brokenTimeline() }));

    // Assert: 1 − (100 TPS ÷ 600 s) × 240 s ÷ (2 × 25 TPS) = 0.2.
    expect(outcome.headroom).toEqual({
      current: 0.6,
      wouldHold: 0.2,
      scaleOutLagSeconds: 240,
      note: 'headroom 0.2 would have held: 1 − 0.167 TPS/s × 240 s ÷ (2 × 25 TPS) = 0.2',
    });
  });

  it('says to raise the minimum when the lag’s growth alone exceeds the minimum’s capacity', () => {
    // Act: 10 TPS per instance: 2 carry 20 TPS, the ramp adds 40 in 240 s.
    const outcome = rampOutcome(input({ timeline: brokenTimeline(), perInstanceTps: 10 }));

    // Assert: ⌈40 ÷ (10 × 0.4)⌉ = 10.
    expect(outcome.headroom?.wouldHold).toBeNull();
    expect(outcome.headroom?.note).toBe(
      'no headroom holds: the ramp adds 40 TPS in the 240 s a scale-out takes, more than 2 instance(s) carry (20 TPS); raise the minimum to 10 at headroom 0.6, or ramp more slowly',
    );
  });

  it('says the lag is unknown when the SLA broke and no scale-out came', () => {
    // Act
    const outcome = rampOutcome(
      input({ timeline: brokenTimeline(), instances: [{ atEpochMs: START_MS - 1000, inService: 2 }] }),
    );

    // Assert
    expect(outcome.scaleOuts).toEqual([]);
    expect(outcome.headroom).toEqual({
      current: 0.6,
      wouldHold: null,
      scaleOutLagSeconds: null,
      note: 'no scale-out followed the metric passing its target during the ramp, so its lag is unknown: check the maximum capacity and that the policy was attached',
    });
  });

  it('holds with no headroom advice when every bucket met the SLA', () => {
    // Act
    const outcome = rampOutcome(input());

    // Assert
    expect(outcome.held).toBe(true);
    expect(outcome.slaBrokenMinutes).toBe(0);
    expect(outcome.headroom).toBeUndefined();
  });

  it('draws each bucket with the instances in service at its start', () => {
    // Act
    const outcome = rampOutcome(input({ timeline: brokenTimeline() }));

    // Assert
    expect(outcome.chart.map((point) => point.inService)).toEqual([2, 2, 2, 2, 4, 4, 4, 4, 6, 6]);
    expect(outcome.chart[2]).toEqual({
      fromSeconds: 120,
      offeredTps: 45,
      tps: 45,
      p95Ms: 250,
      p99Ms: 400,
      errorRate: 0,
      inService: 2,
      meetsSla: false,
    });
  });

  it('does not count a bucket the ramp offered nothing in as a breach', () => {
    // Act: a ramp from 0 whose first bucket holds no arrival.
    const empty = bucket(0, { offeredTps: 0, tps: 0, requests: 0 });
    const outcome = rampOutcome(input({ timeline: [empty, ...input().timeline.slice(1)] }));

    // Assert
    expect(outcome.slaBrokenSeconds).toBe(0);
  });
});
