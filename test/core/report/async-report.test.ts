import { describe, expect, it } from '@jest/globals';
import { buildAsyncReport, instanceHoursOf } from '../../../core/report/async-report.js';
import { countTicks, latencyBins } from '../../../core/report/async-report-charts.js';
import {
  asyncActivities,
  asyncItems,
  asyncReport,
  asyncReportInput,
  asyncSummary,
  ORIGIN_MS,
} from '../../../bench/fixtures/async-reports.js';

describe('buildAsyncReport', () => {
  it('leads with the outcome and the per-input counts of the summary', () => {
    // Act
    const report = asyncReport();

    // Assert
    expect(report).toMatchObject({
      kind: 'async-inference',
      outcome: 'partial',
      outcomeText: 'Partial: 27 of 30 inputs completed',
      counts: { inputs: 30, completed: 27, failed: 2, timedOut: 1 },
      endpoint: { action: 'deploy', instanceType: 'ml.c5.xlarge', maxInstanceCount: 3 },
    });
  });

  it('draws the instances from the count at the start and each scaling activity that completed', () => {
    // Act
    const { timeline } = asyncReport();

    // Assert: the failed activity at +200 s changed nothing; the line reaches the summary.
    expect(timeline.instances).toEqual([
      { atSeconds: 0, count: 0 },
      { atSeconds: 90, count: 1 },
      { atSeconds: 150, count: 3 },
      { atSeconds: 420, count: 3 },
    ]);
  });

  it('prices the instance-hours under the instance line at the listed price', () => {
    // Act
    const { money } = asyncReport();

    // Assert: 60 s at 1 instance and 270 s at 3: 870 instance-seconds.
    expect(money.instanceHours).toBeCloseTo(870 / 3600, 6);
    expect(money.usdPerInstanceHour).toBe(0.204);
    expect(money.costUsd).toBeCloseTo((870 / 3600) * 0.204, 6);
    expect(money.estimatedUsd).toBe(0.52);
    expect(money.basis).toContain('ml.c5.xlarge at $0.204/h');
  });

  it('starts the instance line at the count the last completed activity before the invocations set', () => {
    // Act
    const report = asyncReport({ instancesAtStart: null });

    // Assert: the scale-in to 0 completed 1,100 s before the first invocation.
    expect(report.timeline.instances?.[0]).toEqual({ atSeconds: 0, count: 0 });
  });

  it('says the instance-hours are unknown when no count was recorded', () => {
    // Act
    const report = asyncReport({ instancesAtStart: null, activities: [] });

    // Assert
    expect(report.timeline.instances).toBeNull();
    expect(report.money).toMatchObject({ instanceHours: null, costUsd: null });
    expect(report.notes).toContain(
      'the instance count was not recorded (no count when the invocations started and no completed scaling activity): instance-hours are unknown',
    );
  });

  it('counts the inputs awaiting a result from each invocation to its result', () => {
    // Act
    const { awaiting } = asyncReport().timeline;

    // Assert: 30 sent within 2.9 s, the last (timed out) answered at 402.9 s.
    expect(Math.max(...awaiting.map((point) => point.count))).toBe(30);
    expect(awaiting.find((point) => point.count === 30)?.atSeconds).toBe(2.9);
    expect(awaiting.at(-2)).toEqual({ atSeconds: 402.9, count: 0 });
    expect(awaiting.at(-1)).toEqual({ atSeconds: 420, count: 0 });
  });

  it('keeps the backlog the endpoint recorded, from the size in effect at the first invocation', () => {
    // Act
    const { backlog } = asyncReport().timeline;

    // Assert
    expect(backlog?.slice(0, 3)).toEqual([
      { atSeconds: 0, count: 30 },
      { atSeconds: 60, count: 30 },
      { atSeconds: 120, count: 24 },
    ]);
    expect(backlog?.at(-1)).toEqual({ atSeconds: 420, count: 0 });
  });

  it('says CloudWatch had not published when an AWS run has no backlog yet', () => {
    // Act
    const report = asyncReport({ backlog: [] });

    // Assert
    expect(report.timeline.backlog).toBeNull();
    expect(report.notes).toContain(
      'ApproximateBacklogSize had no data points yet (CloudWatch publishes with a delay of a few minutes)',
    );
  });

  it('keeps the last of several backlog changes within the same millisecond', () => {
    // Act
    const { backlog } = asyncReport({
      backlog: [
        { atEpochMs: ORIGIN_MS + 5, size: 1 },
        { atEpochMs: ORIGIN_MS + 5, size: 2 },
        { atEpochMs: ORIGIN_MS + 5, size: 3 },
      ],
    }).timeline;

    // Assert
    expect(backlog).toEqual([
      { atSeconds: 0.005, count: 3 },
      { atSeconds: 420, count: 3 },
    ]);
  });

  it('counts the results cumulatively, completed apart from failed or timed out', () => {
    // Act
    const { completions } = asyncReport().timeline;

    // Assert
    expect(completions[0]).toEqual({ atSeconds: 0, completed: 0, failed: 0 });
    expect(completions.at(-1)).toEqual({ atSeconds: 402.9, completed: 27, failed: 3 });
  });

  it('draws nothing over time when no input was invoked, and says so', () => {
    // Arrange
    const items = asyncItems().map(({ invokedAtEpochMs: _, finishedAtEpochMs: __, ...item }) => item);

    // Act
    const report = buildAsyncReport(asyncReportInput({ items }));

    // Assert
    expect(report.timeline).toMatchObject({
      originEpochMs: null,
      awaiting: [],
      backlog: null,
      instances: null,
    });
    expect(report.notes).toContain('no input was invoked: nothing to draw over time');
  });

  it('calls a run with no completed input so', () => {
    // Act
    const report = asyncReport({
      summary: asyncSummary({ outcome: 'all-inputs-failed', completed: 0, failed: 29 }),
    });

    // Assert
    expect(report.outcomeText).toBe('No input completed (0 of 30)');
  });

  it('keeps only the activities that completed, even when one failed later', () => {
    // Arrange: only the failed activity after the origin.
    const activities = asyncActivities().filter((activity) => activity.status === 'Failed');

    // Act
    const report = asyncReport({ activities, instancesAtStart: 2 });

    // Assert
    expect(report.timeline.instances).toEqual([
      { atSeconds: 0, count: 2 },
      { atSeconds: 420, count: 2 },
    ]);
  });
});

describe('instanceHoursOf', () => {
  it('adds each count times the seconds it held', () => {
    expect(
      instanceHoursOf([
        { atSeconds: 0, count: 2 },
        { atSeconds: 1800, count: 1 },
        { atSeconds: 3600, count: 1 },
      ]),
    ).toBe(1.5);
  });
});

describe('latencyBins', () => {
  it('bins every input with a time once, stacked by result within a bin', () => {
    // Act
    const bins = latencyBins(asyncReport());

    // Assert
    expect(bins.reduce((sum, bin) => sum + bin.inputs, 0)).toBe(30);
    for (const bin of bins) expect(bin.top - bin.below).toBe(bin.inputs);
    const shared = bins.filter((bin) => bin.fromSeconds === 160);
    expect(shared.map((bin) => [bin.status, bin.below, bin.top])).toEqual([
      ['completed', 0, 1],
      ['failed', 1, 2],
    ]);
  });
});

describe('countTicks', () => {
  it('lists whole numbers at 1, 2 or 5 × a power of ten', () => {
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    expect(countTicks(30)).toEqual([0, 5, 10, 15, 20, 25, 30]);
    expect(countTicks(700)).toEqual([0, 200, 400, 600]);
  });
});
