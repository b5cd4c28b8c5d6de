import { describe, expect, it } from '@jest/globals';
import { rampSummaryLine, rampText } from '../../../core/report/render-ramp.js';
import type { RampOutcome } from '../../../core/serving/ramp.js';
import {
  heldRamp,
  notHeldRamp,
  serveTargetRamp,
  serveTargetReport,
  withRamp,
} from '../../../bench/fixtures/ramp-reports.js';

/** A one-bucket ramp with the given scale-outs: the rest of the outcome does not matter here. */
function outcomeWith(scaleOuts: RampOutcome['scaleOuts']): RampOutcome {
  return {
    seconds: 60,
    slaBrokenSeconds: 0,
    slaBrokenMinutes: 0,
    held: true,
    breaches: [],
    scaleOuts,
    instanceSeconds: 120,
    costUsd: 0.0034,
    chart: [
      {
        fromSeconds: 0,
        offeredTps: 150,
        tps: 150,
        p95Ms: 12,
        p99Ms: 18,
        errorRate: 0,
        inService: 2,
        meetsSla: true,
      },
    ],
  };
}

describe('rampText', () => {
  it('says "no trigger found" for a scale-out no bucket’s rate per instance called for', () => {
    // Prepare
    const ramp = serveTargetRamp({
      status: 'held',
      note: 'held',
      outcome: outcomeWith([
        { atSeconds: 40, fromInstances: 2, toInstances: 3, triggerSeconds: null, secondsToScaleOut: null },
      ]),
    });

    // Act
    const { facts } = rampText(ramp);

    // Assert
    expect(facts).toContain(
      'Scale-out: 2 → 3 instances in service at 40 s; no trigger found (no bucket since the previous scale-out passed the policy’s target per instance).',
    );
  });

  it('says that no scale-out happened during the ramp', () => {
    // Prepare
    const ramp = serveTargetRamp({ status: 'held', note: 'held', outcome: outcomeWith([]) });

    // Act
    const { facts } = rampText(ramp);

    // Assert
    expect(facts).toContain('Scale-outs: none during the ramp.');
  });

  it('leaves out what the ramp does not state (rates, instances, the policy’s target)', () => {
    // Prepare
    const ramp = { status: 'held' as const, note: 'held', outcome: outcomeWith([]) };

    // Act
    const { facts } = rampText(ramp);

    // Assert
    expect(facts[0]).toBe('Ramp: the ramp over 60 s.');
  });

  it('does not repeat the status word a failed ramp’s note already opens with', () => {
    // Act
    const { status } = rampText({ status: 'failed', note: 'failed: the ramp endpoint did not start' });

    // Assert
    expect(status).toBe('Failed: the ramp endpoint did not start.');
  });
});

describe('rampSummaryLine', () => {
  it('says the ramp held and lists each scale-out with its lag', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), heldRamp());

    // Act
    const line = rampSummaryLine(report);

    // Assert
    expect(line).toBe(
      'Ramp test 140 → 600 TPS over 600 s on 2–9 × ml.c5.large: held; scale-outs 2 → 4 (after 200 s), ' +
        '4 → 7 (after 160 s), 7 → 9 (after 60 s)',
    );
  });

  it('gives the minutes the SLA was broken and points to the report when the ramp did not hold', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), notHeldRamp());

    // Act
    const line = rampSummaryLine(report);

    // Assert
    expect(line).toBe(
      'Ramp test 140 → 600 TPS over 600 s on 2–9 × ml.c5.large: SLA broken 4 min; scale-outs 2 → 4 (after 200 s), ' +
        '4 → 7 (after 160 s), 7 → 9 (after 60 s): see the report',
    );
  });

  it('says "no trigger found" and "no scale-out" in a few words', () => {
    // Prepare
    const noTrigger = withRamp(
      serveTargetReport(),
      serveTargetRamp({
        status: 'held',
        note: 'held',
        outcome: outcomeWith([
          { atSeconds: 40, fromInstances: 2, toInstances: 3, triggerSeconds: null, secondsToScaleOut: null },
        ]),
      }),
    );
    const none = withRamp(
      serveTargetReport(),
      serveTargetRamp({ status: 'held', note: 'held', outcome: outcomeWith([]) }),
    );

    // Act
    const lines = [rampSummaryLine(noTrigger), rampSummaryLine(none)];

    // Assert
    expect(lines).toEqual([
      'Ramp test 140 → 600 TPS over 60 s on 2–9 × ml.c5.large: held; scale-outs 2 → 3 (no trigger found)',
      'Ramp test 140 → 600 TPS over 60 s on 2–9 × ml.c5.large: held; no scale-out',
    ]);
  });

  it('gives a skipped ramp’s reason', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), {
      status: 'skipped',
      note: 'off (rampTest.enabled is not true)',
    });

    // Act
    const line = rampSummaryLine(report);

    // Assert
    expect(line).toBe('Ramp test skipped: off (rampTest.enabled is not true)');
  });

  it('gives a failed ramp’s note', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), {
      status: 'failed',
      note: 'the load workers fell behind the ramp: 2 of 3 were late',
    });

    // Act
    const line = rampSummaryLine(report);

    // Assert
    expect(line).toBe('Ramp test failed: the load workers fell behind the ramp: 2 of 3 were late');
  });

  it('is absent when the report has no ramp', () => {
    // Act & Assert
    expect(rampSummaryLine(serveTargetReport())).toBeUndefined();
  });
});
