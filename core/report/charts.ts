import { logger, parse, View, Warn } from 'vega';
import { compile } from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import {
  CHART_WIDTH,
  type ChartSpec,
  costChartSpec,
  isEmptyChart,
  latencyChartSpec,
  streamChartSpec,
  tokensChartSpec,
  throughputChartSpec,
} from './charts-specs.js';
import { rampChartSpec } from './ramp-chart.js';
import type { Report } from './report.js';
import { sweepHeatmapSpec } from './sweep-chart.js';

/** The report's charts as standalone SVG documents, ready to inline in HTML. */
export interface ReportCharts {
  readonly latency: string;
  readonly throughput: string;
  readonly costPer1M: string;
  /** The sweep grid's heatmap, when report.json has a grid. */
  readonly sweep?: string;
  /** Time to first token and inter-token latency vs load, when steps streamed. */
  readonly stream?: string;
  /** Output tokens per second vs load, when steps streamed. */
  readonly tokens?: string;
  /** The ramp test's time series, when report.json has a measured ramp (`serveTarget.ramp`). */
  readonly ramp?: string;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** What an empty chart shows: its title and why there is nothing to plot, at the charts' size. */
function emptyChartSvg(title: string, message: string): string {
  const height = 80;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="marks" width="${CHART_WIDTH}" height="${height}" ` +
    `viewBox="0 0 ${CHART_WIDTH} ${height}" role="img" aria-label="${escapeXml(`${title}: ${message}`)}">` +
    `<rect width="${CHART_WIDTH}" height="${height}" fill="white" stroke="#ccc"/>` +
    `<text x="12" y="28" font-family="sans-serif" font-size="13" font-weight="bold">${escapeXml(title)}</text>` +
    `<text x="12" y="54" font-family="sans-serif" font-size="12" fill="#555">${escapeXml(message)}</text></svg>`
  );
}

/** What Vega's logger prints: `console[method](level, ...input)` (vega-util's `log`). */
interface LoggedMessage {
  readonly method: 'error' | 'warn' | 'log';
  readonly args: readonly unknown[];
}

/** One spec's SVG, and what Vega and Vega-Lite logged while making it. */
interface RenderedChart {
  readonly svg: string;
  readonly messages: readonly LoggedMessage[];
}

/**
 * Renders a Vega-Lite spec to SVG headless: Vega's `renderer: 'none'` view needs no canvas or DOM,
 * and without a canvas package it estimates text widths, which is enough for axis labels. Its
 * messages (warnings and up) are kept, not printed, so that every call for the spec prints them.
 */
async function render(spec: TopLevelSpec): Promise<RenderedChart> {
  const messages: LoggedMessage[] = [];
  const keep = logger(Warn, undefined, (method, level, input) => {
    messages.push({ method, args: [level, ...(input as readonly unknown[])] });
  });
  const view = new View(parse(compile(spec, { logger: keep }).spec), { renderer: 'none', logger: keep });
  try {
    return { svg: await view.toSVG(), messages };
  } finally {
    view.finalize();
  }
}

/** How many specs' renders are kept: a report has at most seven charts. */
const KEPT_RENDERS = 32;

/**
 * The latest renders by the spec's JSON, oldest first. A render is a pure function of the spec and
 * costs a Vega-Lite compile, a Vega parse and a dataflow run, some 100 ms of CPU; the same charts
 * are rendered again when one run's report is rendered again (a retried Recommend in a warm Lambda,
 * runs of one input on simulated time, whose measurements are equal).
 */
const keptRenders = new Map<string, Promise<RenderedChart>>();

/**
 * A Vega-Lite spec as a standalone SVG document. What Vega logged making it is printed on every
 * call, as its default logger prints it (`console.warn('WARN', …)`), rendered now or before.
 */
export async function toSvg(spec: TopLevelSpec): Promise<string> {
  const key = JSON.stringify(spec);
  let rendered = keptRenders.get(key);
  if (rendered === undefined) {
    const rendering = render(spec);
    rendered = rendering;
    keptRenders.set(key, rendering);
    // A failed render is not kept: the next call tries again.
    rendering.catch(() => {
      if (keptRenders.get(key) === rendering) keptRenders.delete(key);
    });
    const oldest = keptRenders.keys().next();
    if (keptRenders.size > KEPT_RENDERS && oldest.done !== true) keptRenders.delete(oldest.value);
  }
  const { svg, messages } = await rendered;
  for (const { method, args } of messages) console[method](...args);
  return svg;
}

export async function renderChart(chart: ChartSpec): Promise<string> {
  return isEmptyChart(chart) ? emptyChartSvg(chart.title, chart.message) : toSvg(chart);
}

/**
 * Latency percentiles vs load, TPS vs load, cost per 1M, a sweep's heatmap and a ramp's time
 * series, one SVG each; never fetches anything.
 */
export async function renderReportCharts(report: Report): Promise<ReportCharts> {
  const streamSpec = streamChartSpec(report);
  const tokensSpec = tokensChartSpec(report);
  const rampSpec = rampChartSpec(report);
  const [latency, throughput, costPer1M, sweep, stream, tokens, ramp] = await Promise.all([
    renderChart(latencyChartSpec(report)),
    renderChart(throughputChartSpec(report)),
    renderChart(costChartSpec(report)),
    report.sweep === undefined ? undefined : toSvg(sweepHeatmapSpec(report.sweep, report.measuredLocally)),
    streamSpec === undefined ? undefined : renderChart(streamSpec),
    tokensSpec === undefined ? undefined : renderChart(tokensSpec),
    rampSpec === undefined ? undefined : renderChart(rampSpec),
  ]);
  return {
    latency,
    throughput,
    costPer1M,
    ...(sweep === undefined ? {} : { sweep }),
    ...(stream === undefined ? {} : { stream }),
    ...(tokens === undefined ? {} : { tokens }),
    ...(ramp === undefined ? {} : { ramp }),
  };
}
