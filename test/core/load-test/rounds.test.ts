import { describe, expect, it } from '@jest/globals';
import type { LoadTestResult, StepResult, StopReason } from '../../../core/load-test/results.js';
import {
  kneeBracket,
  nextKneeLoad,
  nextRound,
  roundPlan,
  settleRounds,
  worstCaseRounds,
} from '../../../core/load-test/rounds.js';
import { type LoadPlan, loadPlanSchema } from '../../../core/contracts/load-plan.js';

const CLOSED = loadPlanSchema.parse({ model: 'closed', steps: [4, 8], stepDurationSeconds: 5 });
const OPEN = loadPlanSchema.parse({ model: 'open', steps: [100, 200], stepDurationSeconds: 5 });

function step(load: number, tps: number, meetsSla: boolean, p95 = 40): StepResult {
  return {
    load,
    loadKind: 'concurrency',
    tps,
    errorRate: 0,
    latencyMs: { p50: 10, p90: 30, p95, p99: 60, max: 70 },
    requests: 100,
    errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
    errorSamples: [],
    late: 0,
    dropped: 0,
    windowSeconds: 5,
    workers: 1,
    meetsSla,
    slaBreaches: meetsSla ? [] : ['p95 90.000 ms > SLA 50 ms'],
    histogram: '',
  };
}

function result(
  steps: readonly StepResult[],
  stoppedBecause: StopReason,
  rounds: Pick<LoadTestResult, 'probes' | 'repeats'> = {},
): LoadTestResult {
  return {
    schemaVersion: 1,
    model: 'closed',
    workers: 1,
    startEpochMs: 0,
    finishedEpochMs: 10_000,
    steps,
    sustainableTps: null,
    sustainableStep: null,
    meetsTargetTps: null,
    stoppedBecause,
    stopDetail: '',
    ...rounds,
  };
}

/** Runs the bisection against an endpoint that meets the SLA up to `kneeLoad`; the loads probed. */
function bisect(plan: LoadPlan, kneeLoad: number, first: LoadTestResult): number[] {
  let current = first;
  const probed: number[] = [];
  for (let load = nextKneeLoad(current, plan); load !== null; load = nextKneeLoad(current, plan)) {
    probed.push(load);
    current = { ...current, probes: [...(current.probes ?? []), step(load, load * 10, load <= kneeLoad)] };
  }
  return probed;
}

describe('nextKneeLoad', () => {
  it('bisects a closed plan in whole numbers, stopping when none is left strictly between', () => {
    // Prepare: 4 met the SLA, 8 breached it; the knee is at 6.
    const stepped = result([step(4, 40, true), step(8, 50, false)], 'sla-breached');

    // Act
    const probed = bisect(CLOSED, 6, stepped);

    // Assert: 6 passes, 7 fails, nothing strictly between 6 and 7.
    expect(probed).toEqual([6, 7]);
  });

  it('bisects an open plan for as many probes as the plan allows', () => {
    // Prepare: 100 requests/s met the SLA, 200 breached it; the knee is at 130.
    const stepped = result([step(100, 100, true), step(200, 150, false)], 'sla-breached');

    // Act
    const probed = bisect({ ...OPEN, kneeProbes: 3 }, 130, stepped);

    // Assert: 150 fails, 125 passes, 137.5 fails; then the 3 probes are spent.
    expect(probed).toEqual([150, 125, 137.5]);
  });

  it('finds no knee when every step met the SLA', () => {
    // Prepare
    const stepped = result([step(4, 40, true), step(8, 80, true)], 'completed');

    // Act & Assert
    expect(nextKneeLoad(stepped, CLOSED)).toBeNull();
  });

  it('finds no knee when a plateau stopped the stepping', () => {
    // Prepare: 8 met the SLA but did not raise throughput.
    const stepped = result([step(4, 40, true), step(8, 40, true)], 'plateau');

    // Act & Assert
    expect(kneeBracket(stepped)).toBeNull();
  });

  it('finds no knee when the first step breached the SLA', () => {
    // Prepare
    const stepped = result([step(4, 40, false)], 'sla-breached');

    // Act & Assert
    expect(kneeBracket(stepped)).toBeNull();
  });

  it('runs no probe with kneeProbes 0', () => {
    // Prepare
    const stepped = result([step(4, 40, true), step(8, 50, false)], 'sla-breached');

    // Act & Assert
    expect(nextKneeLoad(stepped, { ...CLOSED, kneeProbes: 0 })).toBeNull();
  });
});

describe('nextRound', () => {
  it('repeats the best load among steps and passing probes once the knee is found', () => {
    // Prepare: probes 6 (passed, 60 TPS) and 7 (breached).
    const probed = result([step(4, 40, true), step(8, 50, false)], 'sla-breached', {
      probes: [step(6, 60, true), step(7, 65, false)],
    });

    // Act
    const round = nextRound(probed, CLOSED);

    // Assert: the default 2 repeats make one round; 2 rounds ran before it.
    expect(round).toEqual({ index: 2, kind: 'repeat', load: 6 });
  });

  it('ends once the repeats are done', () => {
    // Prepare
    const repeated = result([step(4, 40, true)], 'completed', { repeats: [step(4, 42, true)] });

    // Act & Assert
    expect(nextRound(repeated, CLOSED)).toBeNull();
  });

  it('runs no default round for a plan with a maxTotalRequests budget', () => {
    // Prepare
    const stepped = result([step(4, 40, true), step(8, 50, false)], 'sla-breached');

    // Act & Assert
    expect(nextRound(stepped, { ...CLOSED, maxTotalRequests: 10_000 })).toBeNull();
  });

  it('runs no round after the load test spent its maxTotalRequests', () => {
    // Prepare
    const capped = result([step(4, 40, true), step(8, 50, false)], 'request-cap');

    // Act & Assert
    expect(nextRound(capped, CLOSED)).toBeNull();
  });

  it('runs no round when no step met the SLA', () => {
    // Prepare
    const failed = result([step(4, 40, false)], 'sla-breached');

    // Act & Assert
    expect(nextRound(failed, CLOSED)).toBeNull();
  });
});

describe('settleRounds', () => {
  it('takes the sustainable TPS as the median of the repeats and gives their spread', () => {
    // Prepare: the probe at 6 is the best; measured 3 times, once over the SLA.
    const measured = result([step(4, 40, true), step(8, 50, false)], 'sla-breached', {
      probes: [step(6, 60, true, 41), step(7, 58, false)],
      repeats: [step(6, 66, true, 39), step(6, 54, false, 52)],
    });

    // Act
    const settled = settleRounds(measured, 62);

    // Assert
    expect({
      sustainableTps: settled.sustainableTps,
      sustainableStep: settled.sustainableStep,
      meetsTargetTps: settled.meetsTargetTps,
      spread: settled.spread,
    }).toEqual({
      sustainableTps: 60,
      sustainableStep: 6,
      meetsTargetTps: false,
      spread: {
        n: 3,
        metSla: 2,
        tps: { min: 54, median: 60, max: 66 },
        p95Ms: { min: 39, median: 41, max: 52 },
      },
    });
  });

  it('averages the two middle measurements of an even count', () => {
    // Prepare
    const measured = result([step(4, 40, true)], 'completed', { repeats: [step(4, 45, true)] });

    // Act
    const settled = settleRounds(measured, undefined);

    // Assert
    expect([settled.sustainableTps, settled.spread?.tps]).toEqual([42.5, { min: 40, median: 42.5, max: 45 }]);
  });
});

describe('round planning', () => {
  it('counts every probe and repeat but the original measurement', () => {
    expect(worstCaseRounds({ kneeProbes: 3, repeats: 2 })).toBe(4);
  });

  it('runs a round as one step at its load, without extension or plateau stop', () => {
    // Prepare
    const plan = loadPlanSchema.parse({
      model: 'closed',
      steps: [4, 8],
      warmupSeconds: 2,
      stepDurationSeconds: 5,
      extendUntilSaturated: true,
      maxLoad: 32,
    });

    // Act
    const one = roundPlan(plan, 6);

    // Assert
    expect([
      one.steps,
      one.stopAtPlateau,
      one.extendUntilSaturated,
      one.maxLoad,
      one.maxTotalSeconds,
    ]).toEqual([[6], false, undefined, undefined, 900]);
  });
});
