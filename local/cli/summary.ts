/** The end-of-run summary: a table of the candidates, why each won or lost, and where the reports are. */
import {
  compiledComparisonText,
  baselineDetailLines,
  rampSummaryLine,
  serveTargetSummaryLine,
  highNoiseWarning,
  busyMachineNote,
  streamAtSustainable,
  slaBoundsText,
  plannedQualityText,
  qualityCellText,
  noisePercent,
} from '../../core/report/index.js';
import type { CandidateReport, Report } from '../../core/report/index.js';
import { formatRate } from './progress.js';
import { table } from './shared.js';
import type { LatencyPercentilesMs } from '../../core/contracts/index.js';

/** How a candidate's model server ran locally (from the local model host). */
export interface ServerSettings {
  readonly workers: number;
  readonly intraOpThreads: number;
  readonly capped: boolean;
}

export interface SummaryInput {
  readonly report: Report;
  /** Candidate id → its server's settings, when it was launched. */
  readonly servers: ReadonlyMap<string, ServerSettings>;
  /** Display paths of report.json, report.md and report.html. */
  readonly reportPaths: { readonly json: string; readonly markdown: string; readonly html: string };
  readonly availableCpus: number;
}

export function formatSummary(input: SummaryInput): string {
  const { report } = input;
  const rows = report.candidates.map((candidate) =>
    summaryRow(report, candidate, input.servers.get(candidate.id)),
  );
  const lines = [
    '',
    `Summary of run ${report.runId}${report.name === undefined ? '' : ` (${report.name})`}: SLA ${slaBoundsText(report.sla)}, objective ${report.objective}`,
    '',
    ...table(
      [
        'candidate',
        'instance',
        'compiled',
        'server',
        'verdict',
        ...(report.quality === undefined ? [] : ['answers']),
        'req/s',
        'p50 ms',
        'p95 ms',
        '$/1M inf.',
      ],
      rows,
    ),
    ...(report.quality === undefined ? [] : [`  answers: ${plannedQualityText(report.quality)}`]),
    ...bracketLegend(report),
    ...streamSummaryLines(report),
    '',
    ...report.candidates.map((candidate) => `  ${candidate.id}: ${candidate.reason}`),
    ...compiledComparisonLines(report),
    '',
    report.recommendation === null
      ? `No recommendation: ${report.noRecommendationReason ?? 'no candidate met the SLA'}`
      : `Recommendation: ${report.recommendation.candidateId} — ${report.recommendation.why}`,
    ...[busyMachineNote(report)].filter((line) => line !== undefined),
    ...[serveTargetSummaryLine(report), rampSummaryLine(report)].filter((line) => line !== undefined),
    ...baselineSummaryLines(report),
    `Measured locally on this machine (${input.availableCpus} cores) standing in for the instance types; server = workers × ONNX Runtime threads${rows.some((row) => row[3]?.endsWith('*')) ? ', * = the instance has more vCPUs than this machine has cores' : ''}. Prices are the instances' list prices.`,
    '',
    'Reports:',
    `  ${input.reportPaths.json}`,
    `  ${input.reportPaths.markdown}`,
    `  ${input.reportPaths.html}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** With a quality guard, the "answers" cell: none without one. */
function answersCells(report: Report, candidate: CandidateReport): string[] {
  const { quality } = report;
  if (quality === undefined) return [];
  return [qualityCellText(candidate.quality, candidate.id === quality.referenceCandidateId, quality.rule)];
}

function summaryRow(
  report: Report,
  candidate: CandidateReport,
  server: ServerSettings | undefined,
): string[] {
  const latency = figuresOf(candidate);
  return [
    candidate.id,
    candidate.instanceType ??
      (candidate.serverless === undefined ? '-' : `serverless ${candidate.serverless.memorySizeMb} MB`),
    candidate.compiledFor === undefined
      ? candidate.optimizedBy === undefined
        ? 'no'
        : `opt ${candidate.optimizedBy}`
      : `${candidate.compiledFor}${candidate.quantization === undefined ? '' : ` ${candidate.quantization.type}`}`,
    server === undefined ? '-' : `${server.workers}×${server.intraOpThreads}${server.capped ? '*' : ''}`,
    candidate.nearMiss === undefined ? candidate.verdict : `${candidate.verdict} (near miss)`,
    ...answersCells(report, candidate),
    candidate.sustainableTps === null
      ? '-'
      : `${formatRate(candidate.sustainableTps)}${bracketOf(candidate)}`,
    latency === undefined ? '-' : latency.p50.toFixed(2),
    latency === undefined ? '-' : latency.p95.toFixed(2),
    candidate.costPer1MUsd === undefined
      ? '-'
      : `${candidate.costPer1MIsUpperBound === true ? '≤ ' : ''}$${candidate.costPer1MUsd.toFixed(4)}`,
  ];
}

/**
 * Measured more than once: where a re-run's median is expected (the run's noise, 95 %), or the
 * range over the repeats in a report without a noise figure.
 */
function bracketOf(candidate: CandidateReport): string {
  const range = candidate.spread?.rerun?.tps ?? candidate.spread?.tps;
  return range === undefined ? '' : ` (${formatRate(range.min)}–${formatRate(range.max)})`;
}

/** What the brackets of the req/s column are, when any candidate has them. */
function bracketLegend(report: Report): string[] {
  const repeated = report.candidates.find((candidate) => candidate.spread !== undefined);
  if (repeated?.spread === undefined) return [];
  const { noise } = report;
  const noisy = highNoiseWarning(report);
  return [
    noise === undefined
      ? `  req/s: the median of ${repeated.spread.n} measurements (their range)`
      : `  req/s: the median of ${repeated.spread.n} measurements (where a re-run's median is expected, ${noise.confidence * 100} %: ` +
        `this run's noise, ±${noisePercent(noise.tps, repeated.spread.n, repeated.spread.n)} %, pooled over ${noise.candidates} candidate(s))`,
    ...(noisy === undefined ? [] : [`  ${noisy}`]),
  ];
}

/**
 * Streamed candidates (loadPlan.response) at their sustainable load: time to first token,
 * inter-token latency, output tokens/s and the cost per 1M output tokens, one line each.
 */
function streamSummaryLines(report: Report): string[] {
  const lines = report.candidates.flatMap((candidate) => {
    const stream = streamAtSustainable(candidate);
    if (stream === undefined) return [];
    const cost =
      candidate.costPer1MOutputTokensUsd === undefined
        ? ''
        : `, ${candidate.costPer1MIsUpperBound === true ? '≤ ' : ''}$${candidate.costPer1MOutputTokensUsd.toFixed(4)} per 1M output tokens`;
    // A request's own decode time per token; absent from reports of earlier versions.
    const tpot =
      stream.tpotMs === undefined || stream.tpotMs === null
        ? ''
        : `, time per output token p50 ${stream.tpotMs.p50.toFixed(2)} ms`;
    return [
      `  ${candidate.id}: TTFT p50/p95 ${stream.ttftMs.p50.toFixed(1)}/${stream.ttftMs.p95.toFixed(1)} ms, ITL p50/p95 ${stream.itlMs.p50.toFixed(2)}/${stream.itlMs.p95.toFixed(2)} ms${tpot}, ${formatRate(stream.outputTokensPerSecond)} output tokens/s${cost}`,
    ];
  });
  return lines.length === 0 ? [] : ['', '  Streamed responses at the sustainable load:', ...lines];
}

/** Latency at the sustainable step, else at the first step (that missed the SLA). */
function figuresOf(candidate: CandidateReport): LatencyPercentilesMs | undefined {
  return candidate.latencyAtSustainableMs ?? candidate.steps[0]?.latencyMs ?? undefined;
}

/** A Model Registry run: its verdict against the group's last approved version, and why. */
function baselineSummaryLines(report: Report): string[] {
  const found = report.baselineComparison;
  if (found === undefined) return [];
  return [found.text, ...baselineDetailLines(report).map((line) => `  ${line}`)];
}

/** The report's compiled-vs-uncompiled pairs (core/report/compiled-comparison.ts), one line each. */
function compiledComparisonLines(report: Report): string[] {
  const lines = (report.compiledComparisons ?? []).map((c) => `  ${compiledComparisonText(c)}`);
  return lines.length === 0 ? [] : ['', ...lines];
}
