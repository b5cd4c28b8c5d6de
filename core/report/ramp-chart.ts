import type { TopLevelSpec } from 'vega-lite';
import type { RampOutcome } from '../serving/index.js';
import { CHART_WIDTH, type ChartSpec, ruleLabelLayer, subtitle } from './charts-specs.js';
import type { Report } from './report.js';
import type { LatencySla } from '../contracts/index.js';

/**
 * The ramp test's time series (report.json's `serveTarget.ramp.outcome.chart`): three panels over
 * the same seconds from the ramp's start, one above the other, as a Vega-Lite vertical
 * concatenation: offered and served TPS, p95 and p99 against the SLA's bounds, and the instances in
 * service. The buckets that broke the SLA are red bands across all three, and each scale-out a
 * dotted rule, so a breach lines up with the instances that were missing. Three panels rather than
 * a second y axis: requests/s, milliseconds and instances do not share a scale, and a panel each
 * keeps every axis starting at zero.
 */

export const RAMP_CHART_TITLE = 'Ramp test: load, latency and instances over time';

/** The lines' series, one colour each, in legend order (a concatenation shares one colour legend). */
export const RAMP_SERIES = ['offered TPS', 'served TPS', 'p95', 'p99', 'in service'] as const;
const SERIES_COLORS = ['#90a4ae', '#1f77b4', '#ff7f0e', '#8c564b', '#2ca02c'];
const BREACH_COLOR = '#c62828';
const PANEL_HEIGHT = 140;
const INSTANCES_HEIGHT = 80;
const X_TITLE = 'Seconds from the ramp’s start';
/** What the latency panel says when no bucket had a successful response. */
export const NO_LATENCY_NOTE = 'No bucket had a successful response: no latency to plot';

export interface RampChartData {
  /** Each bucket's offered and served rate at the bucket's middle (they are the bucket's means). */
  readonly rates: readonly { atSeconds: number; series: 'offered TPS' | 'served TPS'; tps: number }[];
  /** Each bucket's p95 and p99; a bucket without a successful response has none to plot. */
  readonly latencies: readonly { atSeconds: number; series: 'p95' | 'p99'; latencyMs: number }[];
  /** The instances in service, a step line: each bucket's start, each scale-out, the ramp's end. */
  readonly instances: readonly { atSeconds: number; series: 'in service'; inService: number }[];
  /** The SLA's breaches, merged over consecutive buckets. */
  readonly breaches: readonly { fromSeconds: number; toSeconds: number }[];
  /** When each scale-out's instances were in service. */
  readonly scaleOuts: readonly { atSeconds: number }[];
  readonly thresholds: readonly { series: 'p95' | 'p99'; thresholdMs: number; label: string }[];
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/**
 * The instances' step line: the counts at each bucket's start and each scale-out's (at the second
 * its instances were in service, finer than a bucket), in time order, kept where the count changes,
 * and the last count again at the ramp's end so the line reaches it.
 */
function instancePoints(outcome: RampOutcome): RampChartData['instances'] {
  const samples = [
    ...outcome.chart.map((point) => ({ atSeconds: point.fromSeconds, inService: point.inService })),
    ...outcome.scaleOuts.map((scaleOut) => ({
      atSeconds: scaleOut.atSeconds,
      inService: scaleOut.toInstances,
    })),
  ].sort((a, b) => a.atSeconds - b.atSeconds);
  const changes = samples.filter((sample, index) => sample.inService !== samples[index - 1]?.inService);
  const last = changes[changes.length - 1];
  const end =
    last === undefined || last.atSeconds >= outcome.seconds ? [] : [{ ...last, atSeconds: outcome.seconds }];
  return [...changes, ...end].map(({ atSeconds, inService }) => ({
    atSeconds,
    series: 'in service',
    inService,
  }));
}

/** What the chart plots, from the ramp's outcome and the SLA it was judged by. */
export function rampChartData(outcome: RampOutcome, sla: LatencySla): RampChartData {
  const buckets = outcome.chart.map((point, index) => {
    const end = outcome.chart[index + 1]?.fromSeconds ?? outcome.seconds;
    return { point, atSeconds: round3((point.fromSeconds + end) / 2) };
  });
  return {
    rates: buckets.flatMap(({ point, atSeconds }) => [
      { atSeconds, series: 'offered TPS' as const, tps: point.offeredTps },
      { atSeconds, series: 'served TPS' as const, tps: point.tps },
    ]),
    latencies: buckets.flatMap(({ point, atSeconds }) =>
      point.p95Ms > 0
        ? [
            { atSeconds, series: 'p95' as const, latencyMs: point.p95Ms },
            { atSeconds, series: 'p99' as const, latencyMs: point.p99Ms },
          ]
        : [],
    ),
    instances: instancePoints(outcome),
    breaches: outcome.breaches.map(({ fromSeconds, toSeconds }) => ({ fromSeconds, toSeconds })),
    scaleOuts: outcome.scaleOuts.map(({ atSeconds }) => ({ atSeconds })),
    thresholds: [
      ...(sla.p95LatencyMs === undefined
        ? []
        : [
            {
              series: 'p95' as const,
              thresholdMs: sla.p95LatencyMs,
              label: `SLA p95 ${sla.p95LatencyMs} ms`,
            },
          ]),
      ...(sla.p99LatencyMs === undefined
        ? []
        : [
            {
              series: 'p99' as const,
              thresholdMs: sla.p99LatencyMs,
              label: `SLA p99 ${sla.p99LatencyMs} ms`,
            },
          ]),
    ],
  };
}

/**
 * The chart of the report's ramp; undefined when the report has no measured ramp, an empty chart
 * when the ramp recorded no bucket.
 */
export function rampChartSpec(report: Report): ChartSpec | undefined {
  const ramp = report.serveTarget?.ramp;
  const outcome = ramp?.outcome;
  if (ramp === undefined || outcome === undefined) return undefined;
  if (outcome.chart.length === 0) {
    return { empty: true, title: RAMP_CHART_TITLE, message: 'The ramp recorded no time bucket.' };
  }
  const data = rampChartData(outcome, report.sla);
  const x = (field: string, title: string | null = null) => ({
    field,
    type: 'quantitative' as const,
    title,
    scale: { domain: [0, outcome.seconds], nice: false },
  });
  const color = {
    field: 'series',
    type: 'nominal',
    title: 'Series',
    scale: { domain: [...RAMP_SERIES], range: SERIES_COLORS },
    legend: {
      orient: 'right',
      labelLimit: 260,
      titleLimit: 260,
      symbolType: 'stroke',
      symbolStrokeWidth: 2,
    },
  } as const;
  // The marks every panel shares: breaches behind, then the scale-outs. Layers share their x axis,
  // whose title is the first layer's: only the bottom panel names it.
  const context = (xTitle: string | null = null) => [
    ...(data.breaches.length === 0
      ? []
      : [
          {
            data: { values: data.breaches },
            mark: { type: 'rect' as const, color: BREACH_COLOR, opacity: 0.14 },
            encoding: { x: x('fromSeconds', xTitle), x2: { field: 'toSeconds' } },
          },
        ]),
    ...(data.scaleOuts.length === 0
      ? []
      : [
          {
            data: { values: data.scaleOuts },
            mark: { type: 'rule' as const, color: '#444', strokeDash: [2, 3], strokeWidth: 1.5 },
            encoding: { x: x('atSeconds', xTitle) },
          },
        ]),
  ];
  const rates = {
    width: CHART_WIDTH,
    height: PANEL_HEIGHT,
    layer: [
      ...context(),
      {
        data: { values: data.rates },
        mark: { type: 'line' as const, strokeWidth: 2 },
        encoding: {
          x: x('atSeconds'),
          y: { field: 'tps', type: 'quantitative' as const, title: 'Requests/s' },
          color,
        },
      },
    ],
  };
  // A ramp whose every request failed has no latency to plot: the panel says so rather than plot
  // an empty series (whose infinite extent Vega warns of in the logs).
  const latencyLines =
    data.latencies.length === 0
      ? {
          data: { values: [{ note: NO_LATENCY_NOTE }] },
          mark: { type: 'text' as const, color: '#555', fontSize: 12 },
          encoding: {
            text: { field: 'note', type: 'nominal' as const },
            x: { value: CHART_WIDTH / 2 },
            y: { value: PANEL_HEIGHT / 2 },
          },
        }
      : {
          data: { values: data.latencies },
          mark: { type: 'line' as const, strokeWidth: 2, point: { filled: true, size: 20 } },
          encoding: {
            x: x('atSeconds'),
            y: { field: 'latencyMs', type: 'quantitative' as const, title: 'Latency (ms)' },
            color,
          },
        };
  const latency = {
    width: CHART_WIDTH,
    height: PANEL_HEIGHT,
    layer: [
      ...context(),
      latencyLines,
      ...(data.thresholds.length === 0
        ? []
        : [
            {
              data: { values: data.thresholds },
              mark: { type: 'rule' as const, color: '#666', strokeDash: [4, 4], strokeWidth: 1.5 },
              encoding: { y: { field: 'thresholdMs', type: 'quantitative' as const } },
            },
            ruleLabelLayer(data.thresholds, 'thresholdMs'),
          ]),
    ],
  };
  const instances = {
    width: CHART_WIDTH,
    height: INSTANCES_HEIGHT,
    layer: [
      ...context(X_TITLE),
      {
        data: { values: data.instances },
        mark: { type: 'line' as const, strokeWidth: 2, interpolate: 'step-after' as const },
        encoding: {
          x: x('atSeconds', X_TITLE),
          y: {
            field: 'inService',
            type: 'quantitative' as const,
            title: 'Instances',
            axis: { tickMinStep: 1, format: 'd' },
          },
          color,
        },
      },
    ],
  };
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v5.json',
    title: {
      text: RAMP_CHART_TITLE,
      subtitle: subtitle(
        report,
        `${ramp.fromTps ?? '?'} → ${ramp.toTps ?? '?'} TPS over ${outcome.seconds} s; red bands: buckets that broke the SLA; dotted: scale-outs in service; grey rules: the SLA`,
      ),
    },
    spacing: 12,
    vconcat: [rates, latency, instances],
  };
  return spec;
}
