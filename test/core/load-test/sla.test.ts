import { describe, expect, it } from '@jest/globals';
import type { StepResult } from '../../../core/load-test/results.js';
import { findStopPoint, pickSustainable, slaBreaches } from '../../../core/load-test/sla.js';
import { describeStall } from '../../../core/load-test/stall.js';
import { loadPlanSchema } from '../../../core/contracts/load-plan.js';

const FIGURES = {
  requests: 1000,
  dropped: 0,
  errorRate: 0.002,
  latencyMs: { p50: 100, p90: 300, p95: 420, p99: 800, max: 900 },
  windowSeconds: 30,
};

function step(load: number, tps: number, meetsSla = true): StepResult {
  return {
    load,
    loadKind: 'concurrency',
    tps,
    errorRate: 0,
    latencyMs: FIGURES.latencyMs,
    requests: 100,
    errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
    errorSamples: [],
    late: 0,
    dropped: 0,
    windowSeconds: 30,
    workers: 1,
    meetsSla,
    slaBreaches: meetsSla ? [] : ['p95 900.000 ms > SLA 500 ms'],
    histogram: '',
  };
}

describe('slaBreaches', () => {
  it('is empty when every bound is met', () => {
    expect(slaBreaches(FIGURES, { p95LatencyMs: 500, p99LatencyMs: 800, maxErrorRate: 0.01 })).toEqual([]);
  });

  it('names each bound that is exceeded with the measured and the allowed value', () => {
    expect(
      slaBreaches(
        { ...FIGURES, errorRate: 0.025 },
        { p95LatencyMs: 400, p99LatencyMs: 750, maxErrorRate: 0.01 },
      ),
    ).toEqual(['p95 420.000 ms > SLA 400 ms', 'p99 800.000 ms > SLA 750 ms', 'error rate 2.50% > SLA 1.00%']);
  });

  it('fails a step in which nothing was measured', () => {
    expect(slaBreaches({ ...FIGURES, requests: 0 }, { p95LatencyMs: 500, maxErrorRate: 0.01 })).toEqual([
      'no request was measured in the window',
    ]);
  });

  it('fails a step whose endpoint stalled, naming it first, whatever its other figures', () => {
    expect(
      slaBreaches(
        { ...FIGURES, stall: { atMs: 1000, durationMs: 17_000 } },
        { p95LatencyMs: 500, maxErrorRate: 0.01 },
      ),
    ).toEqual([
      'endpoint stalled: no answer for 17.0 s from 1.0 s into the window while requests were outstanding',
    ]);
  });

  it('fails a step whose endpoint stalled though no request was measured', () => {
    expect(
      slaBreaches(
        { ...FIGURES, requests: 0, stall: { atMs: 0, durationMs: 20_000 } },
        { p95LatencyMs: 500, maxErrorRate: 0.01 },
      ),
    ).toEqual([
      'endpoint stalled: no answer for 20.0 s from 0.0 s into the window while requests were outstanding',
      'no request was measured in the window',
    ]);
  });

  it('fails a step whose load was not delivered, whatever its latency', () => {
    expect(slaBreaches({ ...FIGURES, dropped: 3 }, { p95LatencyMs: 500, maxErrorRate: 0.01 })).toEqual([
      '3 of 1003 scheduled requests dropped: they waited longer than the request timeout for a free connection',
    ]);
  });
});

describe('findStopPoint', () => {
  const plan = loadPlanSchema.parse({ steps: [1, 2, 4, 8] });

  it('stops at the first step that breaches the SLA', () => {
    expect(findStopPoint([step(1, 100), step(2, 200), step(4, 300, false)], plan, 'closed')).toEqual({
      index: 2,
      reason: 'sla-breached',
      detail: 'step 3 (4 in flight): p95 900.000 ms > SLA 500 ms',
    });
  });

  it('stops at the first step whose endpoint stalled, as a stall, with its other breaches', () => {
    // Prepare
    const stall = { atMs: 1000, durationMs: 17_000 };
    const stalled: StepResult = {
      ...step(2, 40, false),
      stall,
      slaBreaches: [describeStall(stall), 'p95 900.000 ms > SLA 500 ms'],
    };

    // Act
    const stop = findStopPoint([step(1, 100), stalled], plan, 'closed');

    // Assert
    expect(stop).toEqual({
      index: 1,
      reason: 'stalled',
      detail:
        'endpoint stalled at 1.0 s into step 2 (2 in flight) for 17.0 s; also p95 900.000 ms > SLA 500 ms',
    });
  });

  it('stops when a step raises throughput by less than plateauGain over the best so far', () => {
    // 300 → 310 is +3.3 %, less than the 5 % that counts as rising.
    expect(findStopPoint([step(1, 100), step(2, 300), step(4, 310)], plan, 'closed')).toEqual({
      index: 2,
      reason: 'plateau',
      detail: 'step 3 (4 in flight): 310.0 TPS is less than 1.05 × 300.0 TPS of step 2',
    });
  });

  it('compares with the best earlier step, not just the previous one', () => {
    expect(findStopPoint([step(1, 300), step(2, 200), step(4, 310)], plan, 'closed')?.index).toBe(1);
  });

  it('keeps stepping while throughput rises', () => {
    expect(findStopPoint([step(1, 100), step(2, 190), step(4, 350)], plan, 'closed')).toBeNull();
  });

  it('ignores plateaus when stopAtPlateau is off', () => {
    const noPlateau = loadPlanSchema.parse({ steps: [1, 2], stopAtPlateau: false });
    expect(findStopPoint([step(1, 300), step(2, 300)], noPlateau, 'closed')).toBeNull();
  });
});

describe('pickSustainable', () => {
  it('takes the highest throughput among the steps before the first breach', () => {
    expect(
      pickSustainable([step(1, 100), step(2, 250), step(4, 240), step(8, 400, false), step(16, 500)]),
    ).toEqual({
      tps: 250,
      load: 2,
    });
  });

  it('is null when the first step already breaches', () => {
    expect(pickSustainable([step(1, 100, false)])).toBeNull();
  });
});
