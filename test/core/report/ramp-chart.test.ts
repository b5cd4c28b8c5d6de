import { describe, expect, it } from '@jest/globals';
import { logger, Warn } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { isEmptyChart } from '../../../core/report/charts-specs.js';
import { renderReportCharts } from '../../../core/report/charts.js';
import {
  NO_LATENCY_NOTE,
  RAMP_CHART_TITLE,
  rampChartData,
  rampChartSpec,
} from '../../../core/report/ramp-chart.js';
import { rampOutcome } from '../../../core/serving/ramp.js';
import {
  brokenTimeline,
  notHeldRamp,
  rampInput,
  serveTargetRamp,
  serveTargetReport,
  withRamp,
} from '../../../bench/fixtures/ramp-reports.js';
import { withConsoleWarnings } from './support/console-warnings.js';
import { SAMPLE_SLA } from '../../../bench/fixtures/sample-report.js';

/** The marks of each panel's layers, top to bottom. */
function panelMarks(spec: TopLevelSpec): string[][] {
  const { vconcat } = spec as { vconcat: { layer: { mark: { type: string } | { type: 'text' } }[] }[] };
  return vconcat.map((panel) => panel.layer.map((layer) => layer.mark.type));
}

describe('rampChartData', () => {
  it('plots the ramp’s outcome: rates and latency at each bucket’s middle, instances as they changed, breaches and scale-outs', () => {
    // Prepare
    const outcome = rampOutcome(rampInput({ timeline: brokenTimeline() }));

    // Act
    const data = rampChartData(outcome, SAMPLE_SLA);

    // Assert: buckets of 60 s offer 163 + 46 i TPS; 2 instances serve 200 until the first scale-out.
    const offered = [163, 209, 255, 301, 347, 393, 439, 485, 531, 577];
    const served = [163, 200, 200, 200, 347, 393, 417, 485, 531, 577];
    expect(data.rates).toEqual(
      offered.flatMap((tps, index) => [
        { atSeconds: 30 + 60 * index, series: 'offered TPS', tps },
        { atSeconds: 30 + 60 * index, series: 'served TPS', tps: served[index] },
      ]),
    );
    const slow = (index: number) => index >= 1 && index <= 3;
    expect(data.latencies).toEqual(
      offered.flatMap((_, index) => [
        { atSeconds: 30 + 60 * index, series: 'p95', latencyMs: slow(index) ? 45 : 12 },
        { atSeconds: 30 + 60 * index, series: 'p99', latencyMs: slow(index) ? 80 : 18 },
      ]),
    );
    expect(data.instances).toEqual([
      { atSeconds: 0, series: 'in service', inService: 2 },
      { atSeconds: 200, series: 'in service', inService: 4 },
      { atSeconds: 400, series: 'in service', inService: 7 },
      { atSeconds: 540, series: 'in service', inService: 9 },
      { atSeconds: 600, series: 'in service', inService: 9 },
    ]);
    expect(data.breaches).toEqual([
      { fromSeconds: 60, toSeconds: 240 },
      { fromSeconds: 360, toSeconds: 420 },
    ]);
    expect(data.scaleOuts).toEqual([{ atSeconds: 200 }, { atSeconds: 400 }, { atSeconds: 540 }]);
    expect(data.thresholds).toEqual([
      { series: 'p95', thresholdMs: 20, label: 'SLA p95 20 ms' },
      { series: 'p99', thresholdMs: 40, label: 'SLA p99 40 ms' },
    ]);
  });

  it('leaves a bucket without a successful response out of the latency panel', () => {
    // Prepare: every request of bucket 4 failed, so its percentiles are zeros, not the best figure.
    const timeline = brokenTimeline().map((bucket, index) =>
      index === 4
        ? {
            ...bucket,
            tps: 0,
            errors: bucket.requests,
            errorRate: 1,
            latencyMs: { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
          }
        : bucket,
    );
    const outcome = rampOutcome(rampInput({ timeline }));

    // Act
    const data = rampChartData(outcome, SAMPLE_SLA);

    // Assert
    expect(data.latencies.map((point) => point.atSeconds)).not.toContain(270);
    expect(data.rates).toContainEqual({ atSeconds: 270, series: 'served TPS', tps: 0 });
  });

  it('draws only the SLA’s bounds that are set', () => {
    // Prepare
    const outcome = rampOutcome(rampInput());

    // Act
    const data = rampChartData(outcome, { maxErrorRate: 0.01, p95LatencyMs: 25 });

    // Assert
    expect(data.thresholds).toEqual([{ series: 'p95', thresholdMs: 25, label: 'SLA p95 25 ms' }]);
  });
});

describe('rampChartSpec', () => {
  it('stacks three panels, each with the breaches and scale-outs behind its series, and compiles without warnings', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), notHeldRamp());

    // Act
    const chart = rampChartSpec(report);

    // Assert
    if (chart === undefined || isEmptyChart(chart)) throw new Error('expected a chart');
    expect(panelMarks(chart)).toEqual([
      ['rect', 'rule', 'line'],
      ['rect', 'rule', 'line', 'rule', 'text'],
      ['rect', 'rule', 'line'],
    ]);
    const warnings: string[] = [];
    compile(chart, {
      logger: logger(Warn, undefined, (_method, _level, input) => {
        warnings.push(Array.from(input).join(' '));
      }),
    });
    expect(warnings).toEqual([]);
  });

  it('says in the latency panel that no bucket had a successful response, when none had, and Vega warns of nothing', async () => {
    // Prepare: every request of the ramp failed, so no bucket has a latency to plot.
    const timeline = brokenTimeline().map((bucket) => ({
      ...bucket,
      tps: 0,
      errors: bucket.requests,
      errorRate: 1,
      latencyMs: { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 },
    }));
    const failed = serveTargetRamp({
      status: 'not-held',
      note: 'every request failed',
      outcome: rampOutcome(rampInput({ timeline })),
    });
    const report = withRamp(serveTargetReport(), failed);

    // Act
    const chart = rampChartSpec(report);
    const {
      result: { ramp: svg },
      warnings,
    } = await withConsoleWarnings(() => renderReportCharts(report));

    // Assert
    if (chart === undefined || isEmptyChart(chart)) throw new Error('expected a chart');
    expect(panelMarks(chart)[1]).toEqual(['rect', 'rule', 'text', 'rule', 'text']);
    expect(svg).toContain(NO_LATENCY_NOTE);
    expect(warnings).toEqual([]);
  });

  it('has no breach layer when the ramp held', () => {
    // Prepare
    const held = serveTargetRamp({ status: 'held', note: 'held', outcome: rampOutcome(rampInput()) });

    // Act
    const chart = rampChartSpec(withRamp(serveTargetReport(), held));

    // Assert
    if (chart === undefined || isEmptyChart(chart)) throw new Error('expected a chart');
    expect(panelMarks(chart)[0]).toEqual(['rule', 'line']);
  });

  it('says why it is empty when the ramp recorded no bucket', () => {
    // Prepare
    const empty = serveTargetRamp({
      status: 'held',
      note: 'held',
      outcome: rampOutcome(rampInput({ timeline: [] })),
    });

    // Act
    const chart = rampChartSpec(withRamp(serveTargetReport(), empty));

    // Assert
    expect(chart).toEqual({
      empty: true,
      title: RAMP_CHART_TITLE,
      message: 'The ramp recorded no time bucket.',
    });
  });

  it('is left out when the ramp measured nothing (skipped or failed)', () => {
    // Prepare
    const report = withRamp(serveTargetReport(), { status: 'skipped', note: 'no sla.targetTps' });

    // Act & Assert
    expect(rampChartSpec(report)).toBeUndefined();
  });
});
