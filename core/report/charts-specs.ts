import type { TopLevelSpec } from 'vega-lite';
import { totalErrors } from '../load-test/index.js';
import { chartedCandidates, chartedNote } from './chart-selection.js';
import type { CandidateReport, Report, ReportStep } from './report.js';
import type { LatencyPercentilesMs } from '../contracts/index.js';

/**
 * Vega-Lite specifications of the report's three charts, built from the report alone. User
 * strings (candidate ids) only ever enter as data values, never into expressions or formats, so
 * they cannot change what the chart does; Vega escapes them when it writes SVG text.
 */

export const CHART_WIDTH = 860;
const CHART_HEIGHT = 300;

/** A chart that has nothing to plot says why instead of drawing empty axes. */
export interface EmptyChart {
  readonly empty: true;
  readonly title: string;
  readonly message: string;
}

export type ChartSpec = TopLevelSpec | EmptyChart;

export function isEmptyChart(chart: ChartSpec): chart is EmptyChart {
  return 'empty' in chart;
}

/** Above this spread of values an axis switches to a log scale, so small figures stay readable. */
const LOG_SCALE_RATIO = 10;

function spreadIsWide(values: readonly number[]): boolean {
  const positive = values.filter((value) => value > 0);
  if (positive.length < 2) return false;
  return Math.max(...positive) / Math.min(...positive) >= LOG_SCALE_RATIO;
}

/**
 * One colour per drawn candidate, the same in every chart. At most MAX_CHARTED_CANDIDATES are
 * drawn (chart-selection.ts), so ten colours never repeat.
 */
function candidateColor(report: Report): { domain: string[]; scheme: 'tableau10' } {
  return { domain: chartedCandidates(report).shown.map((candidate) => candidate.id), scheme: 'tableau10' };
}

function loadAxisTitle(report: Report): string {
  return report.loadPlan.model === 'open' ? 'Arrival rate (requests/s)' : 'Concurrency (requests in flight)';
}

/** The load axis: ticks at the measured steps exactly (they are what the reader looks up). */
function loadEncoding(report: Report, loads: readonly number[]) {
  const steps = [...new Set(loads)].sort((a, b) => a - b);
  return {
    field: 'load',
    type: 'quantitative',
    title: loadAxisTitle(report),
    scale: spreadIsWide(steps)
      ? ({ type: 'log', base: 2 } as const)
      : ({ type: 'linear', zero: false } as const),
    axis: { values: steps, format: '~g' },
  } as const;
}

/** A step with no successful request has no latency: its zeros would plot as the best figure. */
function latencyOf(step: ReportStep): LatencyPercentilesMs | undefined {
  const latency = step.latencyMs;
  return latency !== null && step.requests - totalErrors(step.errors) > 0 && latency.p95 > 0
    ? latency
    : undefined;
}

/**
 * The steps and knee probes of the candidates the charts draw (all of them, or the best few past
 * eight): a probe is a measurement at a load between two steps, so it sits on the same curve.
 * Repeats are drawn as the throughput chart's bar, not as points.
 */
function stepsOf(report: Report): { candidate: CandidateReport; step: ReportStep }[] {
  return chartedCandidates(report).shown.flatMap((candidate) =>
    [...candidate.steps, ...(candidate.probes ?? [])].map((step) => ({ candidate, step })),
  );
}

/**
 * The sustainable load's bar for each drawn candidate measured more than once: where a re-run's
 * median TPS is expected (the run's noise, 95 %), or the repeats' min–max in a report without it.
 */
function repeatBars(report: Report) {
  return chartedCandidates(report).shown.flatMap((candidate) => {
    const { spread } = candidate;
    if (spread === undefined || candidate.sustainableStep === null) return [];
    const range = spread.rerun?.tps ?? spread.tps;
    return [
      {
        candidate: candidate.id,
        load: candidate.sustainableStep,
        low: range.min,
        high: range.max,
        median: spread.tps.median,
      },
    ];
  });
}

/**
 * Local figures say so on the chart itself, which may be copied out of the report alone; so does a
 * chart that draws only the best few candidates.
 */
export function subtitle(report: Report, text: string, charted = false): string | string[] {
  const line = report.measuredLocally ? `${text} (measured locally)` : text;
  const note = charted ? chartedNote(report, chartedCandidates(report)) : undefined;
  return note === undefined ? line : [line, note];
}

const LEGEND = { orient: 'right', labelLimit: 260, titleLimit: 260 } as const;

/** One line per candidate and series (dashed by series), its points, and the SLA's rules. */
interface DashedLinesInput {
  readonly title: string;
  readonly subtitle: string;
  /** The field that tells the series apart (dashed), its legend title and its two values. */
  readonly series: {
    readonly field: string;
    readonly title: string;
    readonly domain: readonly [string, string];
  };
  readonly points: readonly ({ readonly load: number; readonly latencyMs: number } & Record<
    string,
    unknown
  >)[];
  readonly thresholds: readonly ({ readonly thresholdMs: number; readonly label: string } & Record<
    string,
    unknown
  >)[];
  readonly yTitle: string;
}

/**
 * The latency charts' shape: milliseconds against the load, a colour per candidate, a dash per
 * series (p95/p99, or TTFT/ITL), grey rules at the SLA's bounds; a log axis when the figures span
 * ten times or more.
 */
function dashedLinesSpec(report: Report, input: DashedLinesInput): TopLevelSpec {
  const { series, points, thresholds } = input;
  const latencies = [...points.map((p) => p.latencyMs), ...thresholds.map((t) => t.thresholdMs)];
  const yScale = spreadIsWide(latencies) ? { type: 'log' as const } : { type: 'linear' as const, zero: true };
  const dash = {
    domain: [...series.domain],
    range: [
      [1, 0],
      [6, 3],
    ],
  };
  const x = loadEncoding(
    report,
    points.map((p) => p.load),
  );
  const y = { field: 'latencyMs', type: 'quantitative', title: input.yTitle, scale: yScale } as const;
  const color = candidateColorEncoding(report);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: { text: input.title, subtitle: subtitle(report, input.subtitle, true) },
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    layer: [
      {
        // Lines and points are separate layers: a line mark with `point: true` makes every legend
        // a circle, and the series legend must show the dash.
        data: { values: points },
        mark: { type: 'line', strokeWidth: 2 },
        encoding: {
          x,
          y,
          color,
          strokeDash: {
            field: series.field,
            type: 'nominal',
            title: series.title,
            scale: dash,
            legend: { ...LEGEND, symbolType: 'stroke', symbolStrokeColor: '#444', symbolStrokeWidth: 2 },
          },
          detail: { field: series.field, type: 'nominal' },
        },
      },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, size: 30 },
        encoding: { x, y, color },
      },
      ...(thresholds.length === 0
        ? []
        : [
            {
              data: { values: thresholds },
              mark: { type: 'rule' as const, color: '#666', strokeWidth: 1.5 },
              encoding: {
                y: { field: 'thresholdMs', type: 'quantitative' as const },
                strokeDash: { field: series.field, type: 'nominal' as const, scale: dash },
              },
            },
            ruleLabelLayer(thresholds, 'thresholdMs'),
          ]),
    ],
  };
}

/** Each candidate's colour, the same in every chart (`candidateColor`), with its legend. */
function candidateColorEncoding(report: Report) {
  return {
    field: 'candidate',
    type: 'nominal',
    title: 'Candidate',
    scale: candidateColor(report),
    legend: LEGEND,
  } as const;
}

/** A step's point: a filled circle where it met the SLA, a cross where it did not. */
const SLA_SHAPE = {
  field: 'sla',
  type: 'nominal',
  title: 'SLA at this step',
  scale: { domain: ['met', 'missed'], range: ['circle', 'cross'] },
  legend: LEGEND,
} as const;

export function latencyChartSpec(report: Report): ChartSpec {
  const title = 'p95 and p99 latency vs load';
  const points = stepsOf(report).flatMap(({ candidate, step }) => {
    const latency = latencyOf(step);
    return latency === undefined
      ? []
      : [
          { candidate: candidate.id, load: step.load, percentile: 'p95', latencyMs: latency.p95 },
          { candidate: candidate.id, load: step.load, percentile: 'p99', latencyMs: latency.p99 },
        ];
  });
  if (points.length === 0) {
    return { empty: true, title, message: 'No candidate completed a load step with successful requests.' };
  }
  const thresholds = [
    ...(report.sla.p95LatencyMs === undefined
      ? []
      : [
          {
            percentile: 'p95',
            thresholdMs: report.sla.p95LatencyMs,
            label: `SLA p95 ${report.sla.p95LatencyMs} ms`,
          },
        ]),
    ...(report.sla.p99LatencyMs === undefined
      ? []
      : [
          {
            percentile: 'p99',
            thresholdMs: report.sla.p99LatencyMs,
            label: `SLA p99 ${report.sla.p99LatencyMs} ms`,
          },
        ]),
  ];
  return dashedLinesSpec(report, {
    title,
    subtitle: 'solid: p95, dashed: p99; grey rules: the SLA',
    series: { field: 'percentile', title: 'Percentile', domain: ['p95', 'p99'] },
    points,
    thresholds,
    yTitle: 'Latency (ms)',
  });
}

/**
 * Streamed responses (loadPlan.response): time to first token and inter-token latency, p95 of each,
 * against the load, with the SLA's streaming bounds; undefined when no drawn step streamed. The two
 * differ by orders of magnitude (tens of ms vs a few), which the shared log axis keeps legible.
 */
export function streamChartSpec(report: Report): ChartSpec | undefined {
  const points = stepsOf(report).flatMap(({ candidate, step }) => {
    const stream = step.stream;
    if (stream === undefined || stream.outputTokens === 0) return [];
    return [
      { candidate: candidate.id, load: step.load, measure: 'TTFT p95', latencyMs: stream.ttftMs.p95 },
      { candidate: candidate.id, load: step.load, measure: 'ITL p95', latencyMs: stream.itlMs.p95 },
    ];
  });
  if (points.length === 0) return undefined;
  const thresholds = [
    ...(report.sla.ttftP95Ms === undefined
      ? []
      : [
          {
            measure: 'TTFT p95',
            thresholdMs: report.sla.ttftP95Ms,
            label: `SLA TTFT p95 ${report.sla.ttftP95Ms} ms`,
          },
        ]),
    ...(report.sla.itlP95Ms === undefined
      ? []
      : [
          {
            measure: 'ITL p95',
            thresholdMs: report.sla.itlP95Ms,
            label: `SLA ITL p95 ${report.sla.itlP95Ms} ms`,
          },
        ]),
  ];
  return dashedLinesSpec(report, {
    title: 'Time to first token and inter-token latency (p95) vs load',
    subtitle: 'solid: time to first token, dashed: inter-token latency; grey rules: the SLA',
    series: { field: 'measure', title: 'Measure', domain: ['TTFT p95', 'ITL p95'] },
    points,
    thresholds,
    yTitle: 'Milliseconds',
  });
}

/**
 * Streamed responses: output tokens per second (the step's throughput × its mean output tokens per
 * response, merged as exactly as its factors) against the load, one line per candidate, a cross
 * where the step missed the SLA; undefined when no drawn step streamed a token. What a generative
 * endpoint is bought for, beside TTFT and ITL.
 */
export function tokensChartSpec(report: Report): ChartSpec | undefined {
  const points = stepsOf(report).flatMap(({ candidate, step }) => {
    const stream = step.stream;
    if (stream === undefined || stream.outputTokens === 0) return [];
    return [
      {
        candidate: candidate.id,
        load: step.load,
        tokensPerSecond: stream.outputTokensPerSecond,
        sla: step.meetsSla ? 'met' : 'missed',
      },
    ];
  });
  if (points.length === 0) return undefined;
  const loads = loadEncoding(
    report,
    points.map((point) => point.load),
  );
  const tokens = {
    field: 'tokensPerSecond',
    type: 'quantitative',
    title: 'Output tokens per second',
  } as const;
  const color = candidateColorEncoding(report);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: {
      text: 'Output tokens per second vs load',
      subtitle: subtitle(report, 'filled circle: step met the SLA, cross: it did not', true),
    },
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    data: { values: points },
    layer: [
      { mark: { type: 'line', strokeWidth: 2 }, encoding: { x: loads, y: tokens, color } },
      {
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: loads,
          y: tokens,
          color,
          shape: SLA_SHAPE,
        },
      },
    ],
  };
}

/** How the cost chart colours a bar: the winner, the others, and those the quality guard refused. */
const COST_BAR_VERDICTS = ['recommended', 'other', 'answers refused'] as const;

function costBarVerdict(candidate: CandidateReport): (typeof COST_BAR_VERDICTS)[number] {
  if (candidate.verdict === 'recommended') return 'recommended';
  // A faster, cheaper candidate whose answers are not the model's must read as refused, not as a bargain.
  return candidate.verdict === 'quality-failed' || candidate.verdict === 'quality-unknown'
    ? 'answers refused'
    : 'other';
}

/** The text layer that names a horizontal rule (an SLA bound, a target) at the chart's left edge. */
export function ruleLabelLayer(values: readonly Record<string, unknown>[], yField: string) {
  return {
    data: { values },
    mark: {
      type: 'text' as const,
      align: 'left' as const,
      baseline: 'bottom' as const,
      dx: 4,
      dy: -2,
      color: '#444',
    },
    encoding: {
      y: { field: yField, type: 'quantitative' as const },
      x: { value: 0 },
      text: { field: 'label', type: 'nominal' as const },
    },
  };
}

export function throughputChartSpec(report: Report): ChartSpec {
  const title = 'Throughput vs load';
  const points = stepsOf(report).map(({ candidate, step }) => ({
    candidate: candidate.id,
    load: step.load,
    tps: step.tps,
    sla: step.meetsSla ? 'met' : 'missed',
  }));
  if (points.length === 0) {
    return { empty: true, title, message: 'No candidate completed a load step.' };
  }
  const bars = repeatBars(report);
  const barText =
    bars.length === 0
      ? ''
      : report.noise === undefined
        ? '; bar and tick: the repeats’ range and median'
        : '; bar and tick: where a re-run’s median is expected (95 %) and the median';
  const target = report.sla.targetTps;
  const loads = loadEncoding(
    report,
    points.map((p) => p.load),
  );
  const tps = { field: 'tps', type: 'quantitative', title: 'Successful responses per second (TPS)' } as const;
  const color = candidateColorEncoding(report);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: {
      text: title,
      subtitle: subtitle(
        report,
        `filled circle: step met the SLA, cross: it did not${barText}${target === undefined ? '' : `; grey rule: target ${target} TPS`}`,
        true,
      ),
    },
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', strokeWidth: 2 },
        encoding: { x: loads, y: tps, color },
      },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          x: loads,
          y: tps,
          color,
          shape: SLA_SHAPE,
        },
      },
      ...(bars.length === 0
        ? []
        : [
            {
              data: { values: bars },
              mark: { type: 'rule' as const, strokeWidth: 3, opacity: 0.45 },
              encoding: {
                x: loads,
                y: { ...tps, field: 'low' },
                y2: { field: 'high' },
                color,
              },
            },
            {
              data: { values: bars },
              mark: { type: 'tick' as const, orient: 'horizontal' as const, thickness: 2, size: 14 },
              encoding: { x: loads, y: { ...tps, field: 'median' }, color },
            },
          ]),
      ...(target === undefined
        ? []
        : [
            {
              data: { values: [{ target, label: `target ${target} TPS` }] },
              mark: { type: 'rule' as const, color: '#666', strokeDash: [4, 4], strokeWidth: 1.5 },
              encoding: { y: { field: 'target', type: 'quantitative' as const } },
            },
            ruleLabelLayer([{ target, label: `target ${target} TPS` }], 'target'),
          ]),
    ],
  };
}

export function costChartSpec(report: Report): ChartSpec {
  const title = 'Cost per 1M inferences at the sustainable load';
  // Sorted here and drawn in data order (`sort: null`): a sort in the layered encoding makes
  // Vega-Lite union two differently sorted domains.
  const bars = report.candidates.flatMap((candidate) =>
    candidate.costPer1MUsd === undefined
      ? []
      : [
          {
            candidate: candidate.id,
            costPer1MUsd: candidate.costPer1MUsd,
            verdict: costBarVerdict(candidate),
          },
        ],
  );
  bars.sort((a, b) => a.costPer1MUsd - b.costPer1MUsd);
  if (bars.length === 0) {
    return {
      empty: true,
      title,
      message: 'No candidate has a cost per 1M inferences: none met the SLA with a known price.',
    };
  }
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: {
      text: title,
      subtitle: subtitle(report, 'only candidates that met the SLA at some step and have a price'),
    },
    width: CHART_WIDTH,
    height: Math.max(60, bars.length * 32),
    data: { values: bars },
    encoding: {
      y: {
        field: 'candidate',
        type: 'nominal',
        title: 'Candidate',
        sort: null,
        axis: { labelLimit: 260 },
      },
      x: {
        field: 'costPer1MUsd',
        type: 'quantitative',
        title: 'USD per 1M inferences',
        axis: { format: '$,.3~g' },
      },
    },
    layer: [
      {
        mark: { type: 'bar', height: { band: 0.7 } },
        encoding: {
          color: {
            field: 'verdict',
            type: 'nominal',
            title: 'Verdict',
            scale: { domain: [...COST_BAR_VERDICTS], range: ['#2e7d32', '#90a4ae', '#c62828'] },
            legend: LEGEND,
          },
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4, color: '#222' },
        encoding: { text: { field: 'costPer1MUsd', type: 'quantitative', format: '$,.4f' } },
      },
    ],
  };
}
