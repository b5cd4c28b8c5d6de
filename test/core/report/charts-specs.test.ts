import { describe, expect, it } from '@jest/globals';
import { logger, Warn } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import {
  type ChartSpec,
  costChartSpec,
  isEmptyChart,
  latencyChartSpec,
  streamChartSpec,
  throughputChartSpec,
  tokensChartSpec,
} from '../../../core/report/charts-specs.js';
import type { Report } from '../../../core/report/report.js';
import { plannedCandidate, reportFrom, sampleReport } from '../../../bench/fixtures/sample-report.js';

function plotted(chart: ChartSpec): TopLevelSpec {
  if (isEmptyChart(chart))
    throw new Error(`expected a chart with data, got the empty chart "${chart.message}"`);
  return chart;
}

/** The inline data of every layer, in layer order. */
function layerValues(chart: ChartSpec): unknown[][] {
  const spec = plotted(chart) as {
    layer?: { data?: { values?: unknown[] } }[];
    data?: { values?: unknown[] };
  };
  return (spec.layer ?? [spec]).map((layer) => layer.data?.values ?? spec.data?.values ?? []);
}

/** Vega-Lite's warnings while compiling a spec (a conflicting scale or legend shows up here). */
function compileWarnings(spec: TopLevelSpec): string[] {
  const warnings: string[] = [];
  compile(spec, {
    logger: logger(Warn, undefined, (_method, _level, input) => {
      warnings.push(Array.from(input).join(' '));
    }),
  });
  return warnings;
}

describe('report chart specs', () => {
  it('compile without Vega-Lite warnings', () => {
    // Prepare
    const report = sampleReport();

    // Act
    const warnings = [latencyChartSpec(report), throughputChartSpec(report), costChartSpec(report)].map(
      (chart) => compileWarnings(plotted(chart)),
    );

    // Assert
    expect(warnings).toEqual([[], [], []]);
  });

  it('plot p95 and p99 per step and the SLA bounds as rules', () => {
    // Prepare
    const report = reportFrom([
      {
        candidate: plannedCandidate('c1-c5-large', 'ml.c5.large', 0.102),
        steps: [{ load: 1, tps: 80, medianMs: 10, tailMs: 2 }],
      },
    ]);
    const step = report.candidates[0]?.steps[0];

    // Act
    const [lines, , rules] = layerValues(latencyChartSpec(report));

    // Assert
    expect(lines).toEqual([
      { candidate: 'c1-c5-large', load: 1, percentile: 'p95', latencyMs: step?.latencyMs?.p95 },
      { candidate: 'c1-c5-large', load: 1, percentile: 'p99', latencyMs: step?.latencyMs?.p99 },
    ]);
    expect(rules).toEqual([
      { percentile: 'p95', thresholdMs: 20, label: 'SLA p95 20 ms' },
      { percentile: 'p99', thresholdMs: 40, label: 'SLA p99 40 ms' },
    ]);
  });

  it('leave steps without a successful request out of the latency chart', () => {
    // Prepare
    const report = reportFrom([
      {
        candidate: plannedCandidate('c1-c5-large', 'ml.c5.large', 0.102),
        steps: [
          { load: 1, tps: 80, medianMs: 10, tailMs: 2 },
          { load: 2, tps: 0, medianMs: 10, tailMs: 2, errors: { timeout: 40 } },
        ],
      },
    ]);

    // Act
    const [lines] = layerValues(latencyChartSpec(report));

    // Assert
    expect(lines?.map((point) => (point as { load: number }).load)).toEqual([1, 1]);
  });

  it('use a log scale for loads spanning a factor of 10 or more, a linear one otherwise', () => {
    // Prepare
    const wide = sampleReport();
    const narrow = reportFrom([
      {
        candidate: plannedCandidate('c1-c5-large', 'ml.c5.large', 0.102),
        steps: [
          { load: 1, tps: 80, medianMs: 10, tailMs: 2 },
          { load: 4, tps: 200, medianMs: 12, tailMs: 2 },
        ],
      },
    ]);
    const xScale = (report: typeof wide): unknown =>
      (plotted(throughputChartSpec(report)) as { layer: { encoding: { x: { scale: unknown } } }[] }).layer[0]
        ?.encoding.x.scale;

    // Act / Assert
    expect(xScale(wide)).toEqual({ type: 'log', base: 2 });
    expect(xScale(narrow)).toEqual({ type: 'linear', zero: false });
  });

  it('draw cost bars cheapest first for the candidates that have a cost, the recommended one marked', () => {
    // Act
    const [bars] = layerValues(costChartSpec(sampleReport()));

    // Assert
    expect(bars).toEqual([
      { candidate: 'c2-c5-xlarge-neo', costPer1MUsd: 0.0885, verdict: 'recommended' },
      { candidate: 'c1-c5-xlarge', costPer1MUsd: 0.4106, verdict: 'other' },
    ]);
  });

  it('become empty charts with a reason when no candidate has a step', () => {
    // Prepare
    const report = reportFrom([{ candidate: plannedCandidate('c1-g4dn-xlarge', 'ml.g4dn.xlarge', 0.736) }]);

    // Act
    const charts = [latencyChartSpec(report), throughputChartSpec(report), costChartSpec(report)];

    // Assert
    expect(charts.map((chart) => isEmptyChart(chart))).toEqual([true, true, true]);
  });
});

describe('the streamed-responses chart', () => {
  const base = reportFrom(
    [
      {
        candidate: plannedCandidate('neo-batch4', 'ml.c5.large', 0.102, { compiledFor: 'ml_c5' }),
        steps: [
          { load: 1, tps: 10, medianMs: 8, tailMs: 2 },
          { load: 2, tps: 18, medianMs: 9, tailMs: 2 },
        ],
      },
    ],
    { plan: { sla: { ttftP95Ms: 150, itlP95Ms: 15, maxErrorRate: 0.01 } } },
  );
  const streamed: Report = {
    ...base,
    candidates: base.candidates.map((candidate) => ({
      ...candidate,
      steps: candidate.steps.map((step) => ({
        ...step,
        stream: {
          format: 'tgi' as const,
          ttftMs: { p50: 20, p90: 22, p95: 20 + step.load, p99: 30, max: 31 },
          itlMs: { p50: 1.8, p90: 2, p95: 2 + step.load / 10, p99: 3, max: 4 },
          outputTokens: 320,
          outputTokensPerSecond: 320,
          outputTokensPerRequest: 32,
          outputTokenSource: 'server' as const,
          withoutToken: 0,
        },
      })),
    })),
  };

  it('draws TTFT and ITL p95 per step with the streaming SLA bounds, and compiles without warnings', () => {
    // Act
    const chart = streamChartSpec(streamed);

    // Assert
    if (chart === undefined) throw new Error('expected a chart');
    const [points, , rules] = layerValues(chart);
    expect(points).toEqual([
      { candidate: 'neo-batch4', load: 1, measure: 'TTFT p95', latencyMs: 21 },
      { candidate: 'neo-batch4', load: 1, measure: 'ITL p95', latencyMs: 2.1 },
      { candidate: 'neo-batch4', load: 2, measure: 'TTFT p95', latencyMs: 22 },
      { candidate: 'neo-batch4', load: 2, measure: 'ITL p95', latencyMs: 2.2 },
    ]);
    expect(rules).toEqual([
      { measure: 'TTFT p95', thresholdMs: 150, label: 'SLA TTFT p95 150 ms' },
      { measure: 'ITL p95', thresholdMs: 15, label: 'SLA ITL p95 15 ms' },
    ]);
    expect(compileWarnings(plotted(chart))).toEqual([]);
  });

  it('is left out when no step streamed', () => {
    // Act & Assert
    expect(streamChartSpec(base)).toBeUndefined();
  });

  it('draws output tokens per second per step, marked by the SLA, and compiles without warnings', () => {
    // Prepare: 32 tokens per response at each step's throughput; the second step missed the SLA.
    const byLoad: Report = {
      ...streamed,
      candidates: streamed.candidates.map((candidate) => ({
        ...candidate,
        steps: candidate.steps.map((step) =>
          step.stream === undefined
            ? step
            : {
                ...step,
                meetsSla: step.load === 1,
                stream: { ...step.stream, outputTokensPerSecond: step.tps * 32 },
              },
        ),
      })),
    };

    // Act
    const chart = tokensChartSpec(byLoad);

    // Assert
    if (chart === undefined) throw new Error('expected a chart');
    expect(layerValues(chart)[0]).toEqual([
      { candidate: 'neo-batch4', load: 1, tokensPerSecond: 320, sla: 'met' },
      { candidate: 'neo-batch4', load: 2, tokensPerSecond: 576, sla: 'missed' },
    ]);
    expect(compileWarnings(plotted(chart))).toEqual([]);
  });

  it('draws no tokens chart when no step streamed', () => {
    // Act & Assert
    expect(tokensChartSpec(base)).toBeUndefined();
  });
});
