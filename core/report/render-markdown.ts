import { qualitySection } from './quality-section.js';
import { qualityCellText } from './quality-text.js';
import { slaBoundsText } from './sla-text.js';
import { scheduledLoads, totalErrors } from '../load-test/index.js';
import type { MetricSummary } from '../ports/index.js';
import { payloadBreakdownIntro, payloadBreakdowns } from './payload-breakdown.js';
import { baselineMarkdown } from './render-baseline.js';
import { compiledComparisonMarkdown } from './compiled-comparison.js';
import { candidateDeployMarkdown, deployMarkdown } from './render-deploy.js';
import {
  proofNotHeld,
  proofNotHeldHeadline,
  serveTargetMarkdown,
  serveTargetPolicyMarkdown,
} from './render-serve-target.js';
import { adviceFor, BUSY_MACHINE_ADVICE } from './advice.js';
import { highNoiseWarning } from './noise.js';
import { sweepMarkdown } from './render-sweep.js';
import type { CandidateReport, RerunRanges, Report, ReportStep, ReportStreamFigures } from './report.js';
import { instanceSpreadText } from '../serving/index.js';
import { escapeMarkdown, markdownCode } from './markdown-text.js';
import type { ColumnKind, RowMark, TextColumn, TextTable } from './report-tables.js';
import { candidateVerdictLabel } from './verdict-labels.js';
import type { LoadPlan } from '../contracts/index.js';

/*
 * report.md, and the content both renderers share: the Markdown and the HTML page show the same
 * sentences and tables, so they are built here once as plain text and each renderer only escapes
 * and lays them out for its format.
 */

// ---------------------------------------------------------------------------------------------
// Figures

const NONE = '—';

function usd(value: number | undefined, digits = 4): string {
  return value === undefined ? NONE : `$${value.toFixed(digits)}`;
}

/** A cost per 1M, as `≤ $x` when it is only an upper bound (the candidate was not saturated). */
export function costPer1MText(figures: {
  readonly costPer1MUsd?: number;
  readonly costPer1MIsUpperBound?: true;
}): string {
  const text = usd(figures.costPer1MUsd);
  return figures.costPer1MIsUpperBound === true && figures.costPer1MUsd !== undefined ? `≤ ${text}` : text;
}

/** Milliseconds with about three significant digits: 0.84, 12.3, 812. */
function formatMs(value: number): string {
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

function formatTps(value: number | null | undefined): string {
  return value === null || value === undefined ? NONE : value.toFixed(1);
}

function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(2)}%`;
}

// ---------------------------------------------------------------------------------------------
// Sentences

export const MEASURED_LOCALLY_NOTICE =
  "Measured locally: these figures come from this machine's CPU standing in for the instance types, " +
  'not from SageMaker endpoints. Prices are the listed AWS rates applied to local throughput; ' +
  'compare candidates with each other, not with production.';

const OBJECTIVE_TEXT: Readonly<Record<string, string>> = {
  'lowest-cost-per-1m': 'lowest cost per 1M inferences among the candidates that meet the SLA',
  'lowest-cost-per-1m-output-tokens':
    'lowest cost per 1M output tokens (streamed responses) among the candidates that meet the SLA',
  'highest-tps': 'highest sustainable throughput within the SLA',
  'lowest-latency': 'lowest p95 latency at the lowest load among the candidates that meet the SLA',
  'lowest-cost-at-target': 'lowest cost per hour at the target TPS among the candidates that meet the SLA',
};

export function objectiveText(report: Report): string {
  return OBJECTIVE_TEXT[report.objective] ?? report.objective;
}

export function slaText(report: Report): string {
  const { sla } = report;
  const target = sla.targetTps === undefined ? 'no target throughput' : `target ${sla.targetTps} TPS`;
  return `${slaBoundsText(sla, formatRate)}; ${target}`;
}

/** `, extended up to 32 while every step meets the SLA`, when the plan extends. */
function extensionText(plan: LoadPlan): string {
  const loads = scheduledLoads(plan);
  if (loads.length === plan.steps.length) return '';
  return `, extended by doubling up to ${loads[loads.length - 1] ?? '?'} while every step meets the SLA`;
}

export function loadPlanText(report: Report): string {
  const plan = report.loadPlan;
  const kind =
    plan.model === 'open'
      ? 'open model, arrival rates (requests/s)'
      : 'closed model, concurrency (requests in flight)';
  return (
    `${kind} ${plan.steps.join(', ')}${extensionText(plan)}; ${plan.warmupSeconds} s warm-up and ${plan.stepDurationSeconds} s ` +
    `measured per step; ${plan.workers} load worker${plan.workers === 1 ? '' : 's'}`
  );
}

export function deploymentText(candidate: CandidateReport): string {
  if (candidate.kind === 'serverless' && candidate.serverless !== undefined) {
    return `serverless ${candidate.serverless.memorySizeMb} MB, max concurrency ${candidate.serverless.maxConcurrency}`;
  }
  const instance = `${candidate.instanceType ?? 'unknown instance type'} × ${candidate.instanceCount}`;
  return candidate.kind === 'existing' ? `existing endpoint, ${instance}` : instance;
}

export function compiledText(candidate: CandidateReport): string {
  if (!candidate.compiled) return 'no';
  if (candidate.compiledFor === undefined) return 'yes';
  const { quantization, compilerOptions } = candidate;
  const how = [
    ...(compilerOptions === undefined ? [] : [compilerOptions]),
    ...(quantization === undefined
      ? []
      : [
          `${quantization.type}, calibrated on ${quantization.calibrationSamples} input(s) in [${quantization.calibrationRange.join(', ')}]`,
        ]),
  ];
  return `yes, for ${candidate.compiledFor}${how.length === 0 ? '' : ` (${how.join('; ')})`}`;
}

/** `KEY=value, KEY2=value2`, or a dash when the candidate sets nothing. */
export function environmentText(environment: Readonly<Record<string, string>>): string {
  const entries = Object.entries(environment);
  return entries.length === 0 ? NONE : entries.map(([key, value]) => `${key}=${value}`).join(', ');
}

const PRICE_SOURCE_TEXT: Readonly<Record<string, string>> = {
  'price-table': 'price table',
  'run-input': 'run input',
  'serverless-per-second': 'serverless per GB-second',
  unknown: 'no price known',
};

export function priceSourceText(source: string): string {
  return PRICE_SOURCE_TEXT[source] ?? source;
}

/** A shortlist's types were the tool's choice, not the user's: the report says so, with the rule. */
export function shortlistText(report: Report): string | undefined {
  if (report.shortlist === undefined) return undefined;
  const { kinds, max } = report.shortlist.request;
  return (
    `These instance types were the tool's choice: the run input asked for a shortlist (kinds ${kinds.join(', ')}, ` +
    `at most ${max}), and the planner took the ${report.shortlist.rule}.`
  );
}

export function priceTableText(report: Report): string {
  const table = report.priceTable;
  return (
    `Prices from the table of ${table.kind}, ${table.region}, recorded on ${table.recordedOn} ` +
    `(${table.url}); a price given in the run input replaces it, and each candidate names its source. ` +
    'Prices change and differ by region: check them before you decide.'
  );
}

export function runCostText(report: Report): string {
  return `Endpoint cost of this run: ${usd(report.runCost.endpointUsd)} (${report.runCost.note}).`;
}

/**
 * A local run's busy machine (report.json's `machineLoad`), in the advice table's words: shown
 * next to the verdict, since a miss may be the machine's. Undefined when it was quiet, or for a
 * report without the figures (AWS runs, earlier versions).
 */
export function busyMachineNote(report: Pick<Report, 'machineLoad'>): string | undefined {
  return report.machineLoad === undefined ? undefined : adviceFor(BUSY_MACHINE_ADVICE, report.machineLoad)[0];
}

/**
 * The machine's load around a local run, e.g. `2 cores; as the run started: load 0.60 per core, 1
 * task running; during it (12 samples): load 1.10 per core on average, up to 1.60, up to 3 tasks
 * running; CPU steal 0.4 %`. Undefined without `machineLoad`.
 */
export function machineLoadText(report: Pick<Report, 'machineLoad'>): string | undefined {
  const load = report.machineLoad;
  if (load === undefined) return undefined;
  const tasks = (count: number | undefined, prefix: string): string =>
    count === undefined ? '' : `, ${prefix}${count} task${count === 1 ? '' : 's'} running`;
  const during =
    load.during === undefined
      ? ''
      : `; during it (${load.during.samples} sample${load.during.samples === 1 ? '' : 's'}): load ` +
        `${load.during.meanLoadPerCore.toFixed(2)} per core on average, up to ${load.during.maxLoadPerCore.toFixed(2)}` +
        tasks(load.during.maxProcsRunning, 'up to ');
  const steal = load.stealPercent === undefined ? '' : `; CPU steal ${load.stealPercent.toFixed(1)} %`;
  return (
    `${load.cores} cores; as the run started: load ${load.before.loadPerCore.toFixed(2)} per core` +
    `${tasks(load.before.procsRunning, '')}${during}${steal}`
  );
}

/** What happened to each candidate, one line each: `cpu: failed — EndpointFailedError: …`. */
export function candidateOutcomeLines(report: Report): string[] {
  return report.candidates.map((c) => `${c.id}: ${candidateVerdictLabel(c)} — ${c.reason}`);
}

/** The recommendation in one paragraph, or why there is none. */
export function recommendationText(report: Report): string {
  const rec = report.recommendation;
  if (rec === null) {
    return `No recommendation: ${report.noRecommendationReason ?? 'no candidate met the SLA'}.`;
  }
  const candidate = report.candidates.find((c) => c.id === rec.candidateId);
  const deployment =
    candidate === undefined
      ? `${rec.instanceType ?? 'unknown instance type'} × ${rec.instanceCount}`
      : deploymentText(candidate);
  const compiled = rec.compiled
    ? candidate?.compiledFor === undefined
      ? 'compiled'
      : `compiled for ${candidate.compiledFor}`
    : 'not compiled';
  const latency =
    rec.latencyMs === undefined
      ? ''
      : ` (p95 ${formatMs(rec.latencyMs.p95)} ms, p99 ${formatMs(rec.latencyMs.p99)} ms at that load)`;
  const cost =
    rec.costPer1MUsd === undefined
      ? ''
      : `, at ${costPer1MText(rec)} per 1M inferences${rec.costPer1MIsUpperBound === true ? ' (an upper bound: not saturated)' : ''}`;
  const fleet =
    rec.instancesForTargetTps === undefined || report.sla.targetTps === undefined
      ? ''
      : `; ${rec.instancesForTargetTps} instance${rec.instancesForTargetTps === 1 ? '' : 's'} of it carry the target of ${report.sla.targetTps} TPS`;
  const noisy = highNoiseWarning(report);
  return (
    `Deploy ${rec.candidateId}: ${deployment}, ${compiled}, environment ${environmentText(rec.environment)}. ` +
    `It sustained ${formatTps(rec.sustainableTps)} TPS within the SLA${latency}${cost}${fleet}. Why: ${rec.why}.` +
    (noisy === undefined ? '' : ` ${noisy}`)
  );
}

function rangeText(
  range: { readonly min: number; readonly max: number },
  format: (value: number) => string,
): string {
  return range.min === range.max ? format(range.min) : `${format(range.min)}–${format(range.max)}`;
}

/** Where a re-run's medians are expected, from the run's noise (report.noise). */
function rerunLine(rerun: RerunRanges): string {
  return (
    `A re-run (95 %, the run's noise): TPS ${rangeText(rerun.tps, formatTps)}` +
    (rerun.p95Ms === undefined ? '' : `, p95 ${rangeText(rerun.p95Ms, formatMs)} ms`) +
    (rerun.costPer1MUsd === undefined
      ? ''
      : `, cost per 1M ${rangeText(rerun.costPer1MUsd, (value) => usd(value))}`)
  );
}

/** The knee probes, the repeats' spread and why rounds ended early, one fact each. */
export function roundLines(candidate: CandidateReport): string[] {
  const probes = candidate.probes ?? [];
  const { spread } = candidate;
  return [
    ...(probes.length === 0
      ? []
      : [
          `Knee probes: ${probes.map((probe) => `${probe.load} ${probe.meetsSla ? 'met the SLA' : 'missed it'}`).join(', ')}`,
        ]),
    ...(spread === undefined
      ? []
      : [
          `Repeats: load ${candidate.sustainableStep ?? '?'} measured ${spread.n} times, ${spread.metSla} met the SLA; ` +
            `TPS ${rangeText(spread.tps, (value) => formatTps(value))} (median ${formatTps(spread.tps.median)}), ` +
            `p95 ${rangeText(spread.p95Ms, formatMs)} ms (median ${formatMs(spread.p95Ms.median)})` +
            (spread.costPer1MUsd === undefined
              ? ''
              : `, cost per 1M ${rangeText(spread.costPer1MUsd, (value) => usd(value))}`),
          ...(spread.rerun === undefined ? [] : [rerunLine(spread.rerun)]),
        ]),
    ...(candidate.roundsNote === undefined ? [] : [`Rounds: ${candidate.roundsNote}`]),
  ];
}

/** A streamed candidate's figures at its sustainable load, when tokens were measured there. */
export function streamAtSustainable(candidate: CandidateReport): ReportStreamFigures | undefined {
  const step = candidate.steps.find((s) => s.load === candidate.sustainableStep && s.meetsSla);
  const stream = step?.stream;
  return stream === undefined || stream.outputTokens === 0 ? undefined : stream;
}

/**
 * A streamed candidate at its sustainable load: TTFT and ITL percentiles, output tokens (and where
 * their count came from), and the cost per 1M output tokens.
 */
function streamLines(candidate: CandidateReport): string[] {
  const stream = streamAtSustainable(candidate);
  if (stream === undefined) return [];
  const source: Record<string, string> = {
    server: "the server's usage figures",
    counted: 'counted as the stream delivered them',
    mixed: "the server's figures where it gave them, else counted",
    none: 'none',
  };
  const cost =
    candidate.costPer1MOutputTokensUsd === undefined
      ? ''
      : `; cost per 1M output tokens ${candidate.costPer1MIsUpperBound === true ? '≤ ' : ''}${usd(candidate.costPer1MOutputTokensUsd)}`;
  return [
    `Streamed (${stream.format}) at load ${candidate.sustainableStep ?? NONE}: time to first token p50 ${formatMs(stream.ttftMs.p50)} / p95 ${formatMs(stream.ttftMs.p95)} / p99 ${formatMs(stream.ttftMs.p99)} ms; ` +
      `inter-token latency p50 ${formatMs(stream.itlMs.p50)} / p95 ${formatMs(stream.itlMs.p95)} / p99 ${formatMs(stream.itlMs.p99)} ms; ` +
      `${formatTps(stream.outputTokensPerSecond)} output tokens/s, ${stream.outputTokensPerRequest.toFixed(1)} per request (${source[stream.outputTokenSource] ?? stream.outputTokenSource})${cost}`,
    ...tpotLines(stream.tpotMs),
  ];
}

/**
 * Each request's time per output token: ITL weighs a long answer by its many gaps, this counts each
 * request once, so a slow decoder serving short answers shows here. A median request's decode speed
 * is its inverse (tokens/s); the slow tail is TPOT's p95, the 5th percentile of speed.
 */
function tpotLines(tpotMs: ReportStreamFigures['tpotMs'] | undefined): string[] {
  if (tpotMs === null || tpotMs === undefined || tpotMs.p50 <= 0) return [];
  return [
    `Time per output token, per request: p50 ${formatMs(tpotMs.p50)} / p95 ${formatMs(tpotMs.p95)} / p99 ${formatMs(tpotMs.p99)} ms ` +
      `(a median request decodes ${formatTps(1000 / tpotMs.p50)} tokens/s, the slowest 5 % below ${formatTps(1000 / tpotMs.p95)})`,
  ];
}

/** Price, stop reason, run cost and raw result of one candidate, one fact per line. */
export function candidateFacts(candidate: CandidateReport): string[] {
  return [
    `Price: ${candidate.costPerHourUsd === undefined ? NONE : `${usd(candidate.costPerHourUsd)}/h`} (${priceSourceText(candidate.priceSource)})`,
    ...(candidate.configurationNote === undefined ? [] : [`Configuration: ${candidate.configurationNote}`]),
    ...routingLines(candidate),
    ...(candidate.stoppedBecause === undefined ? [] : [`Load test stopped: ${candidate.stoppedBecause}`]),
    ...(candidate.saturationNote === undefined ? [] : [`Saturation: ${candidate.saturationNote}`]),
    ...streamLines(candidate),
    ...roundLines(candidate),
    ...(candidate.runCostUsd === undefined
      ? []
      : [`Endpoint cost during the test: ${usd(candidate.runCostUsd)}`]),
    ...endpointMetricsLines(candidate),
    ...(candidate.perInstance === undefined && candidate.perInstanceNote === undefined
      ? []
      : [`Per instance: ${instanceSpreadText(candidate)}`]),
    ...(candidate.resultUri === undefined
      ? []
      : [`Raw result: ${candidate.resultFile ?? candidate.resultUri}`]),
  ];
}

/** The routing strategy a candidate named, and why it changed nothing when it did not. */
function routingLines(candidate: CandidateReport): string[] {
  if (candidate.routingStrategy === undefined) return [];
  return [
    `Routing: ${candidate.routingStrategy}${candidate.routingNote === undefined ? '' : ` (${candidate.routingNote})`}`,
  ];
}

function summaryText(label: string, summary: MetricSummary | undefined, unit: string): string[] {
  if (summary === undefined) return [];
  const value = (n: number): string => (unit === 'ms' ? formatMs(n) : `${Math.round(n)} %`);
  return [`${label} avg ${value(summary.average)} (max ${value(summary.maximum)})`];
}

/** The endpoint's own figures over the test window, or why there are none. */
export function endpointMetricsLines(candidate: CandidateReport): string[] {
  if (candidate.endpointMetricsNote !== undefined)
    return [`Endpoint metrics: ${candidate.endpointMetricsNote}`];
  const metrics = candidate.endpointMetrics;
  if (metrics === undefined) return [];
  const parts = [
    ...summaryText('model latency', metrics.modelLatencyMs, 'ms'),
    ...summaryText('overhead latency', metrics.overheadLatencyMs, 'ms'),
    ...summaryText('CPU (summed over cores)', metrics.cpuUtilizationPercent, '%'),
    ...summaryText('memory', metrics.memoryUtilizationPercent, '%'),
    ...summaryText('GPU', metrics.gpuUtilizationPercent, '%'),
    ...summaryText('GPU memory', metrics.gpuMemoryUtilizationPercent, '%'),
  ];
  const source = metrics.source === 'cloudwatch' ? 'CloudWatch' : 'measured on the local model server';
  return parts.length === 0 ? [] : [`Endpoint metrics over the test (${source}): ${parts.join(', ')}`];
}

/** Error samples of the steps that had errors: the first few per step, long messages cut. */
export const ERROR_SAMPLES_PER_STEP = 3;
const ERROR_MESSAGE_CHARS = 300;

export function errorSampleLines(candidate: CandidateReport): string[] {
  return candidate.steps.flatMap((step) =>
    step.errorSamples.slice(0, ERROR_SAMPLES_PER_STEP).map((sample) => {
      const status = sample.statusCode === undefined ? '' : ` (HTTP ${sample.statusCode})`;
      const message =
        sample.message.length > ERROR_MESSAGE_CHARS
          ? `${sample.message.slice(0, ERROR_MESSAGE_CHARS)}…`
          : sample.message;
      return `load ${step.load}: ${sample.kind}${status}: ${message}`;
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Tables

export function summaryTable(report: Report): TextTable {
  const columns: TextColumn[] = [
    { header: 'Candidate', kind: 'text' },
    { header: 'Instance × count', kind: 'text' },
    { header: 'Compiled', kind: 'text' },
    { header: 'Environment', kind: 'code' },
    { header: 'Verdict', kind: 'text' },
    ...(report.quality === undefined ? [] : [{ header: 'Answers', kind: 'text' as const }]),
    { header: 'Sustainable TPS', kind: 'number' },
    { header: 'p95 ms', kind: 'number' },
    { header: 'p99 ms', kind: 'number' },
    { header: '$/h (source)', kind: 'text' },
    { header: '$/1M', kind: 'number' },
    { header: 'Instances for target', kind: 'number' },
  ];
  const rows = report.candidates.map((c) => ({
    mark: c.verdict,
    cells: [
      c.id,
      deploymentText(c),
      compiledText(c),
      environmentText(c.environment),
      candidateVerdictLabel(c),
      ...(report.quality === undefined
        ? []
        : [qualityCellText(c.quality, c.id === report.quality.referenceCandidateId, report.quality.rule)]),
      formatTps(c.sustainableTps),
      c.latencyAtSustainableMs === undefined ? NONE : formatMs(c.latencyAtSustainableMs.p95),
      c.latencyAtSustainableMs === undefined ? NONE : formatMs(c.latencyAtSustainableMs.p99),
      `${usd(c.costPerHourUsd)} (${priceSourceText(c.priceSource)})`,
      costPer1MText(c),
      c.instancesForTargetTps === undefined ? NONE : String(c.instancesForTargetTps),
    ],
  }));
  return { columns, rows };
}

function stepMark(candidate: CandidateReport, step: ReportStep): RowMark {
  if (!step.meetsSla) return 'missed';
  return step.load === candidate.sustainableStep ? 'sustainable' : 'met';
}

function isOpenModel(report: Report, candidate: CandidateReport): boolean {
  return report.loadPlan.model === 'open' || candidate.steps.some((step) => step.loadKind === 'arrival-rate');
}

export function stepTable(report: Report, candidate: CandidateReport): TextTable {
  const open = isOpenModel(report, candidate);
  // Streamed responses (loadPlan.response): time to first token, inter-token latency, tokens/s.
  const streamed = candidate.steps.some((step) => step.stream !== undefined);
  const columns: TextColumn[] = [
    { header: open ? 'Arrival rate (req/s)' : 'Concurrency', kind: 'number' },
    { header: 'Requests', kind: 'number' },
    { header: 'TPS', kind: 'number' },
    { header: 'Error rate', kind: 'number' },
    { header: 'p50 ms', kind: 'number' },
    { header: 'p90 ms', kind: 'number' },
    { header: 'p95 ms', kind: 'number' },
    { header: 'p99 ms', kind: 'number' },
    { header: 'max ms', kind: 'number' },
    ...(open
      ? [
          { header: 'Late', kind: 'number' as const },
          { header: 'Dropped', kind: 'number' as const },
        ]
      : []),
    ...(streamed
      ? [
          { header: 'TTFT p50 ms', kind: 'number' as const },
          { header: 'TTFT p95 ms', kind: 'number' as const },
          { header: 'ITL p50 ms', kind: 'number' as const },
          { header: 'ITL p95 ms', kind: 'number' as const },
          { header: 'Output tokens/s', kind: 'number' as const },
        ]
      : []),
    { header: 'Errors model/throttled/timeout/client', kind: 'number' },
    { header: 'SLA', kind: 'text' },
  ];
  // Knee probes and repeats follow the steps, marked as such: one-step tests run after them.
  const measured: { step: ReportStep; round?: 'knee probe' | 'repeat' }[] = [
    ...candidate.steps.map((step) => ({ step })),
    ...(candidate.probes ?? []).map((step) => ({ step, round: 'knee probe' as const })),
    ...(candidate.repeats ?? []).map((step) => ({ step, round: 'repeat' as const })),
  ];
  const rows = measured.map(({ step, round }) => {
    const mark = round === 'repeat' && step.meetsSla ? 'met' : stepMark(candidate, step);
    const { errors, latencyMs } = step;
    const sla =
      mark === 'missed'
        ? `missed: ${step.slaBreaches.join('; ')}`
        : mark === 'sustainable'
          ? 'met (sustainable)'
          : 'met';
    return {
      mark,
      cells: [
        round === undefined ? String(step.load) : `${step.load} (${round})`,
        String(step.requests),
        formatTps(step.tps),
        formatRate(step.errorRate),
        // No successful request, no latency: a dash, never 0.00 (which reads as very fast).
        latencyMs === null ? NONE : formatMs(latencyMs.p50),
        latencyMs === null ? NONE : formatMs(latencyMs.p90),
        latencyMs === null ? NONE : formatMs(latencyMs.p95),
        latencyMs === null ? NONE : formatMs(latencyMs.p99),
        latencyMs === null ? NONE : formatMs(latencyMs.max),
        ...(open ? [String(step.late), String(step.dropped)] : []),
        ...(streamed ? streamCells(step) : []),
        totalErrors(errors) === 0
          ? '0'
          : `${errors.modelError}/${errors.throttled}/${errors.timeout}/${errors.clientError}`,
        sla,
      ],
    };
  });
  return { columns, rows };
}

/** A streamed step's TTFT and ITL (p50, p95) and output tokens/s; dashes where none was measured. */
function streamCells(step: ReportStep): string[] {
  const stream = step.stream;
  if (stream === undefined || stream.outputTokens === 0) return [NONE, NONE, NONE, NONE, NONE];
  return [
    formatMs(stream.ttftMs.p50),
    formatMs(stream.ttftMs.p95),
    formatMs(stream.itlMs.p50),
    formatMs(stream.itlMs.p95),
    formatTps(stream.outputTokensPerSecond),
  ];
}

// ---------------------------------------------------------------------------------------------
// Markdown

function markdownCell(text: string, kind: ColumnKind): string {
  return kind === 'code' && text !== NONE ? markdownCode(text) : escapeMarkdown(text);
}

function markdownTable(table: TextTable): string {
  const header = `| ${table.columns.map((c) => escapeMarkdown(c.header)).join(' | ')} |`;
  const rule = `|${table.columns.map((c) => (c.kind === 'number' ? ' ---: ' : ' --- ')).join('|')}|`;
  const rows = table.rows.map(
    (row) =>
      `| ${row.cells.map((cell, index) => markdownCell(cell, table.columns[index]?.kind ?? 'text')).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}

function candidateSection(report: Report, candidate: CandidateReport): string {
  const lines = [
    `### ${escapeMarkdown(candidate.id)}: ${candidateVerdictLabel(candidate)}`,
    '',
    `${escapeMarkdown(deploymentText(candidate))}, compiled: ${escapeMarkdown(compiledText(candidate))}, environment: ${markdownCell(environmentText(candidate.environment), 'code')}`,
    '',
    `**Reason:** ${escapeMarkdown(candidate.reason)}`,
    '',
    ...candidateFacts(candidate).map((fact) => `- ${escapeMarkdown(fact)}`),
    '',
  ];
  if (candidate.steps.length === 0) {
    lines.push('No load step was measured.', '');
  } else {
    lines.push(markdownTable(stepTable(report, candidate)), '');
  }
  const samples = errorSampleLines(candidate);
  if (samples.length > 0) {
    lines.push(
      `First errors (up to ${ERROR_SAMPLES_PER_STEP} per step):`,
      '',
      ...samples.map((sample) => `- ${escapeMarkdown(sample)}`),
      '',
    );
  }
  lines.push(...candidateDeployMarkdown(candidate, escapeMarkdown));
  return lines.join('\n');
}

/** "Output quality", for a run with a quality guard; nothing otherwise. */
function qualityMarkdown(report: Report): string[] {
  const section = qualitySection(report);
  if (section === undefined) return [];
  return [
    '## Output quality',
    '',
    escapeMarkdown(section.intro),
    '',
    markdownTable(section.verdicts),
    '',
    ...section.examples.flatMap(({ heading, table }) => [
      `### ${escapeMarkdown(heading)}`,
      '',
      markdownTable(table),
      '',
    ]),
  ];
}

/** "Latency by payload", for a run that sent a mix of payloads; nothing otherwise. */
function payloadSection(report: Report): string[] {
  const intro = payloadBreakdownIntro(report);
  if (intro === undefined) return [];
  return [
    '## Latency by payload',
    '',
    escapeMarkdown(intro),
    '',
    ...payloadBreakdowns(report).flatMap(({ candidate, where, table }) => [
      `### ${escapeMarkdown(candidate.id)}, ${escapeMarkdown(where)}`,
      '',
      markdownTable(table),
      '',
    ]),
  ];
}

/**
 * report.md: the whole report as GitHub-flavoured Markdown. Its first lines answer, in order: the
 * verdict and the winner (or why none), the money, the sweep grid and the candidate table; context,
 * details and the deploy code (folded) follow.
 */
export function renderMarkdownReport(report: Report): string {
  const title = report.name === undefined ? report.runId : `${report.name} (${report.runId})`;
  const notHeld = proofNotHeld(report);
  const parts = [
    `# Optimization report: ${escapeMarkdown(title)}`,
    '',
    ...(report.measuredLocally ? [`> **${escapeMarkdown(MEASURED_LOCALLY_NOTICE)}**`, ''] : []),
    `Run ${markdownCode(report.runId)}, generated ${escapeMarkdown(report.generatedAt)}.`,
    '',
    '## Outcome',
    '',
    ...(notHeld === undefined ? [] : [`**${escapeMarkdown(proofNotHeldHeadline(notHeld))}.**`, '']),
    `**${escapeMarkdown(report.outcomeText)}** (outcome ${markdownCode(report.outcome)})`,
    '',
    ...(busyMachineNote(report) === undefined
      ? []
      : [`> ${escapeMarkdown(busyMachineNote(report) ?? '')}`, '']),
    '## Recommendation',
    '',
    escapeMarkdown(recommendationText(report)),
    '',
    ...serveTargetMarkdown(report),
    ...sweepMarkdown(report, escapeMarkdown),
    '## Candidates',
    '',
    ...(shortlistText(report) === undefined ? [] : [escapeMarkdown(shortlistText(report) ?? ''), '']),
    markdownTable(summaryTable(report)),
    '',
    ...candidateOutcomeLines(report).map((line) => `- ${escapeMarkdown(line)}`),
    '',
    ...baselineMarkdown(report, escapeMarkdown),
    ...compiledComparisonMarkdown(report, escapeMarkdown),
    ...qualityMarkdown(report),
    '## SLA and objective',
    '',
    `- SLA: ${escapeMarkdown(slaText(report))}`,
    `- Objective: ${escapeMarkdown(objectiveText(report))}`,
    `- Load: ${escapeMarkdown(loadPlanText(report))}`,
    ...(machineLoadText(report) === undefined
      ? []
      : [`- Machine: ${escapeMarkdown(machineLoadText(report) ?? '')}`]),
    '',
    ...report.candidates.map((candidate) => candidateSection(report, candidate)),
    ...payloadSection(report),
    '## Prices and cost',
    '',
    escapeMarkdown(priceTableText(report)),
    '',
    escapeMarkdown(runCostText(report)),
    '',
    ...deployMarkdown(report, escapeMarkdown),
    ...serveTargetPolicyMarkdown(report),
  ];
  return parts.join('\n');
}
