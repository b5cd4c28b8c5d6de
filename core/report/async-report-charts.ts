import type { TopLevelSpec } from 'vega-lite';
import { renderChart } from './charts.js';
import { CHART_WIDTH, type ChartSpec } from './charts-specs.js';
import type { AsyncReport } from './async-report.js';
import { ItemStatuses } from '../contracts/index.js';

/**
 * The async report's four charts, built from report.json alone and rendered to SVG on the server
 * (the page allows no script): inputs awaiting a result and the endpoint's backlog, the instances,
 * the cumulative results (all three over the same seconds from the first invocation), and the
 * distribution of each input's time. Every count is drawn as a step line: it holds its value until
 * the next record.
 */

export const ASYNC_CHART_TITLES = {
  backlog: 'Backlog over time',
  instances: 'Instances over time',
  completions: 'Results over time (cumulative)',
  latency: 'Time per input (invocation → result)',
} as const;

export interface AsyncReportCharts {
  readonly backlog: string;
  readonly instances: string;
  readonly completions: string;
  readonly latency: string;
}

const HEIGHT = 220;
const X_TITLE = 'Seconds from the first invocation';
const SCHEMA = 'https://vega.github.io/schema/vega-lite/v5.json';
const LEGEND = { orient: 'right', labelLimit: 260, titleLimit: 260, symbolType: 'stroke' } as const;

export const BACKLOG_SERIES = {
  awaiting: 'awaiting a result (workflow)',
  backlog: 'backlog (endpoint)',
} as const;
export const COMPLETION_SERIES = { completed: 'completed', failed: 'failed or timed out' } as const;

function subtitle(report: AsyncReport, text: string): string {
  return report.measuredLocally ? `${text} (measured locally)` : text;
}

function empty(title: string, message: string): ChartSpec {
  return { empty: true, title, message };
}

/** The x axis every time chart shares, from 0 to the summary. */
function timeAxis(report: AsyncReport) {
  return {
    field: 'atSeconds',
    type: 'quantitative' as const,
    title: X_TITLE,
    scale: { domain: [0, Math.max(report.timeline.endSeconds, 1)], nice: false },
  };
}

/**
 * A count axis from 0 to `max` with whole-number ticks listed (Vega's own ticks would put labels
 * at halves, which a whole-number format prints twice).
 */
function countAxis(title: string, max: number) {
  const top = Math.max(max, 1);
  return {
    field: 'count',
    type: 'quantitative' as const,
    title,
    scale: { domain: [0, top] },
    axis: { values: countTicks(top), format: 'd' },
  };
}

export function backlogChartSpec(report: AsyncReport): ChartSpec {
  const { awaiting, backlog } = report.timeline;
  const title = ASYNC_CHART_TITLES.backlog;
  if (awaiting.length === 0 && backlog === null)
    return empty(title, 'No input was invoked: nothing to draw.');
  const values = [
    ...awaiting.map((point) => ({ ...point, series: BACKLOG_SERIES.awaiting })),
    ...(backlog ?? []).map((point) => ({ ...point, series: BACKLOG_SERIES.backlog })),
  ];
  const domain = [BACKLOG_SERIES.awaiting, ...(backlog === null ? [] : [BACKLOG_SERIES.backlog])];
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    title: {
      text: title,
      subtitle: subtitle(
        report,
        backlog === null
          ? 'Inputs sent and not yet answered; the endpoint’s own backlog was not recorded'
          : 'Inputs sent and not yet answered, and the endpoint’s backlog (queued or being processed)',
      ),
    },
    width: CHART_WIDTH,
    height: HEIGHT,
    data: { values },
    mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
    encoding: {
      x: timeAxis(report),
      y: countAxis('Requests', Math.max(...values.map((point) => point.count))),
      color: {
        field: 'series',
        type: 'nominal',
        title: 'Series',
        scale: { domain, range: ['#1f77b4', '#ff7f0e'] },
        legend: LEGEND,
      },
      // The same field, title and legend as the colour: Vega-Lite merges them into one legend.
      strokeDash: {
        field: 'series',
        type: 'nominal',
        title: 'Series',
        scale: {
          domain,
          range: [
            [1, 0],
            [5, 3],
          ],
        },
        legend: LEGEND,
      },
    },
  };
  return spec;
}

export function instancesChartSpec(report: AsyncReport): ChartSpec {
  const { instances } = report.timeline;
  const title = ASYNC_CHART_TITLES.instances;
  if (instances === null) return empty(title, 'The instance count was not recorded during this run.');
  const max = report.endpoint.maxInstanceCount;
  const top = Math.max(max ?? 0, ...instances.map((point) => point.count), 1);
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    title: {
      text: title,
      subtitle: subtitle(
        report,
        `Instances in service, a step at each completed scaling activity${max === undefined ? '' : `; autoscaling 0–${max}`}`,
      ),
    },
    width: CHART_WIDTH,
    height: HEIGHT / 2,
    data: { values: instances },
    mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2, color: '#2ca02c' },
    encoding: {
      x: timeAxis(report),
      y: countAxis('Instances', top),
    },
  };
  return spec;
}

export function completionsChartSpec(report: AsyncReport): ChartSpec {
  const { completions } = report.timeline;
  const title = ASYNC_CHART_TITLES.completions;
  if (completions.length <= 1) return empty(title, 'No input got a result.');
  const values = completions.flatMap((point) => [
    { atSeconds: point.atSeconds, count: point.completed, series: COMPLETION_SERIES.completed },
    { atSeconds: point.atSeconds, count: point.failed, series: COMPLETION_SERIES.failed },
  ]);
  const last = completions[completions.length - 1];
  const end =
    last === undefined || last.atSeconds >= report.timeline.endSeconds
      ? []
      : [
          {
            atSeconds: report.timeline.endSeconds,
            count: last.completed,
            series: COMPLETION_SERIES.completed,
          },
          { atSeconds: report.timeline.endSeconds, count: last.failed, series: COMPLETION_SERIES.failed },
        ];
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    title: {
      text: title,
      subtitle: subtitle(report, `Results of the ${report.counts.inputs} inputs as they came back`),
    },
    width: CHART_WIDTH,
    height: HEIGHT,
    data: { values: [...values, ...end] },
    mark: { type: 'line', interpolate: 'step-after', strokeWidth: 2 },
    encoding: {
      x: timeAxis(report),
      y: countAxis('Inputs', report.counts.inputs),
      color: {
        field: 'series',
        type: 'nominal',
        title: 'Result',
        scale: {
          domain: [COMPLETION_SERIES.completed, COMPLETION_SERIES.failed],
          range: ['#2e7d32', '#c62828'],
        },
        legend: LEGEND,
      },
    },
  };
  return spec;
}

const STATUS_LABELS: Readonly<Record<string, string>> = {
  [ItemStatuses.completed]: 'completed',
  [ItemStatuses.failed]: 'failed',
  [ItemStatuses.timedOut]: 'timed out',
};
const STATUS_ORDER = ['completed', 'failed', 'timed out'];

/**
 * A bar of the histogram: the inputs of one status whose time fell in [fromSeconds, toSeconds),
 * stacked from `below` (the bin's inputs of the statuses drawn under it) to `below + inputs`.
 */
export interface LatencyBin {
  readonly fromSeconds: number;
  readonly toSeconds: number;
  readonly status: string;
  readonly inputs: number;
  readonly below: number;
  readonly top: number;
}

/** The histogram's bins' width: 1, 2 or 5 × a power of ten, about 20 bins over the times' range. */
function binWidth(minSeconds: number, maxSeconds: number): number {
  const raw = Math.max(maxSeconds - minSeconds, 0.001) / 20;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((factor) => factor * power).find((width) => width >= raw) ?? raw;
}

/**
 * Each input's invocation → result time, binned here rather than by Vega so the counts are whole
 * numbers the axis can list exactly; one bar per bin and status, stacked.
 */
export function latencyBins(report: AsyncReport): LatencyBin[] {
  const times = report.inputs.flatMap((input) =>
    input.totalMs === null
      ? []
      : [{ seconds: input.totalMs / 1000, status: STATUS_LABELS[input.status] ?? input.status }],
  );
  if (times.length === 0) return [];
  const seconds = times.map((time) => time.seconds);
  const width = binWidth(Math.min(...seconds), Math.max(...seconds));
  const counts = new Map<string, Omit<LatencyBin, 'below' | 'top'>>();
  for (const time of times) {
    const index = Math.floor(time.seconds / width);
    const key = `${index} ${time.status}`;
    const known = counts.get(key);
    const fromSeconds = round6(index * width);
    counts.set(key, {
      fromSeconds,
      toSeconds: round6((index + 1) * width),
      status: time.status,
      inputs: (known?.inputs ?? 0) + 1,
    });
  }
  const sorted = [...counts.values()].sort(
    (a, b) =>
      a.fromSeconds - b.fromSeconds || STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status),
  );
  const stacked = new Map<number, number>();
  return sorted.map((bin) => {
    const below = stacked.get(bin.fromSeconds) ?? 0;
    stacked.set(bin.fromSeconds, below + bin.inputs);
    return { ...bin, below, top: below + bin.inputs };
  });
}

function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Whole-number ticks from 0 to `max`, about six, at 1, 2 or 5 × a power of ten apart. */
export function countTicks(max: number): number[] {
  const raw = Math.max(1, max / 6);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = Math.max(
    1,
    [1, 2, 5, 10].map((factor) => factor * power).find((width) => width >= raw) ?? raw,
  );
  return Array.from({ length: Math.floor(max / step) + 1 }, (_, index) => index * step);
}

/** A histogram of each input's invocation → result time, stacked by its status. */
export function latencyChartSpec(report: AsyncReport): ChartSpec {
  const title = ASYNC_CHART_TITLES.latency;
  const bins = latencyBins(report);
  if (bins.length === 0) return empty(title, 'No input recorded its time.');
  const tallest = Math.max(...bins.map((bin) => bin.top));
  const distribution = report.figures.totalMs;
  const seconds = (value: number): string =>
    `${(value / 1000).toLocaleString('en-US', { maximumFractionDigits: 1 })} s`;
  const rules =
    distribution === null
      ? []
      : [distribution.p50, distribution.p90, distribution.p99].map((value) => ({ seconds: value / 1000 }));
  const spec: TopLevelSpec = {
    $schema: SCHEMA,
    title: {
      text: title,
      subtitle: subtitle(
        report,
        `${bins.reduce((sum, bin) => sum + bin.inputs, 0)} input(s) by their time from invocation to result` +
          (distribution === null
            ? ''
            : `; dashed, left to right: completed inputs' p50 ${seconds(distribution.p50)}, p90 ${seconds(distribution.p90)}, p99 ${seconds(distribution.p99)}`),
      ),
    },
    width: CHART_WIDTH,
    height: HEIGHT,
    layer: [
      {
        data: { values: bins },
        mark: { type: 'bar', stroke: 'white', strokeWidth: 0.5 },
        encoding: {
          x: {
            field: 'fromSeconds',
            type: 'quantitative',
            title: 'Invocation → result (s)',
            scale: { zero: false },
          },
          x2: { field: 'toSeconds' },
          y: {
            field: 'top',
            type: 'quantitative',
            title: 'Inputs',
            scale: { domain: [0, tallest] },
            axis: { values: countTicks(tallest), format: 'd' },
          },
          y2: { field: 'below' },
          color: {
            field: 'status',
            type: 'nominal',
            title: 'Result',
            scale: { domain: STATUS_ORDER, range: ['#2e7d32', '#c62828', '#b26a00'] },
            legend: { orient: 'right', labelLimit: 260, titleLimit: 260 },
          },
        },
      },
      ...(rules.length === 0
        ? []
        : [
            {
              data: { values: rules },
              mark: { type: 'rule' as const, color: '#222', strokeDash: [4, 4], strokeWidth: 1.5 },
              encoding: { x: { field: 'seconds', type: 'quantitative' as const } },
            },
          ]),
    ],
  };
  return spec;
}

/** The four charts as SVG documents, ready to inline. */
export async function renderAsyncReportCharts(report: AsyncReport): Promise<AsyncReportCharts> {
  const [backlog, instances, completions, latency] = await Promise.all([
    renderChart(backlogChartSpec(report)),
    renderChart(instancesChartSpec(report)),
    renderChart(completionsChartSpec(report)),
    renderChart(latencyChartSpec(report)),
  ]);
  return { backlog, instances, completions, latency };
}
