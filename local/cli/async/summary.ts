/**
 * The end-of-run summary of a local async run: one row per input (status, time in SageMaker, total,
 * result or reason), the drain rate, the benchmark figures (scale-out delay from zero, time in
 * backlog) and where the summary files are.
 */
import type { AsyncRunSummary, Distribution, ItemResult } from '../../../core/contracts/index.js';
import { table } from '../shared.js';

export interface AsyncSummaryInput {
  readonly summary: AsyncRunSummary;
  readonly items: readonly ItemResult[];
  /** Display paths of summary.json and summary.md. */
  readonly summaryPaths: {
    readonly json: string;
    readonly markdown: string;
    /** report.html, the page with charts over time, when the summary names one. */
    readonly html?: string;
  };
  /**
   * Display form of a URI, and of the URIs in a failure reason (e.g. their files in the local
   * store).
   */
  readonly displayUri?: (uri: string) => string;
}

/** Rows printed; summary.json has every input. */
const MAX_ROWS = 50;

export function formatAsyncSummary(input: AsyncSummaryInput): string {
  const { summary, items } = input;
  const show = input.displayUri ?? ((uri: string) => uri);
  const tokens = summary.generative !== undefined;
  const rows = items
    .slice(0, MAX_ROWS)
    .map((item) => [
      String(item.itemIndex),
      show(item.inputLocation),
      item.status,
      ms(item.timeInSageMakerMs),
      ms(item.totalMs),
      ...(tokens ? [tokenCell(item)] : []),
      item.status === 'Completed' ? show(item.outputLocation ?? '') : show(item.failureReason ?? ''),
    ]);
  const headers = [
    '#',
    'input',
    'status',
    'in SageMaker',
    'total',
    ...(tokens ? ['tokens out'] : []),
    'result or reason',
  ];
  const lines = [
    '',
    `Summary of run ${summary.runId}${summary.name === undefined ? '' : ` (${summary.name})`}: endpoint ${summary.endpointName}, ${summary.inputs} input(s): ${summary.completed} completed, ${summary.failed} failed, ${summary.timedOut} timed out`,
    '',
    ...table(headers, rows),
    ...(items.length > MAX_ROWS ? [`  … ${items.length - MAX_ROWS} more in summary.json`] : []),
    '',
    `Drain rate: ${rate(summary.drainRatePerMinute)}; first invocation → last result: ${ms(summary.makespanMs)}`,
    `Time in SageMaker (queue + processing): ${distribution(summary.timeInSageMakerMs)}`,
    `Invocation → result (workflow): ${distribution(summary.totalMs)}`,
    ...benchmarkLines(summary),
    ...generativeLines(summary),
    '',
    'Summary files:',
    `  ${input.summaryPaths.json}`,
    `  ${input.summaryPaths.markdown}`,
    ...(input.summaryPaths.html === undefined ? [] : [`Report with charts: ${input.summaryPaths.html}`]),
  ];
  return `${lines.join('\n')}\n`;
}

function benchmarkLines(summary: AsyncRunSummary): string[] {
  const benchmark = summary.benchmark;
  if (benchmark === undefined) return [];
  const backlog =
    benchmark.timeInBacklogMs === null
      ? 'n/a'
      : `average ${ms(benchmark.timeInBacklogMs.average)}, max ${ms(benchmark.timeInBacklogMs.maximum)}`;
  return [
    `Benchmark: burst of ${benchmark.burstSize} from ${benchmark.instancesAtStart ?? '?'} instance(s)`,
    `  scale-out from zero: ${ms(benchmark.scaleOutFromZeroMs)} (a model server process start: the local scale-out delay)`,
    `  burst start → first result: ${ms(benchmark.firstResultMs)}; → last result: ${ms(benchmark.drainMs)}`,
    `  time in backlog: ${backlog}; largest backlog: ${benchmark.maxBacklogSize ?? 'n/a'}`,
    ...benchmark.notes.map((note) => `  note: ${note}`),
  ];
}

function generativeLines(summary: AsyncRunSummary): string[] {
  const generative = summary.generative;
  if (generative === undefined) return [];
  const perInput = generative.outputTokensPerInput;
  const perToken = generative.msPerOutputToken;
  return [
    `Generated tokens (${generative.format} answers, the container's own counts): ${generative.outputTokens.toLocaleString('en-US')} out, ${generative.inputTokens === null ? 'n/a' : generative.inputTokens.toLocaleString('en-US')} in, over ${generative.counted} result(s)${generative.uncounted === 0 ? '' : `; ${generative.uncounted} not counted`}`,
    `  per input: ${perInput === null ? 'n/a' : `p50 ${perInput.p50}, p90 ${perInput.p90}, max ${perInput.max}`} tokens; ${generative.outputTokensPerSecond === null ? 'n/a' : generative.outputTokensPerSecond.toFixed(1)} tokens/s over the run`,
    `  time in SageMaker per output token (queue included): ${perToken === null ? 'n/a' : `p50 ${perToken.p50.toFixed(1)} ms, p90 ${perToken.p90.toFixed(1)} ms, max ${perToken.max.toFixed(1)} ms`}`,
    ...generative.notes.map((note) => `  note: ${note}`),
  ];
}

/** A completed input's output tokens, or why they were not counted; nothing for the others. */
function tokenCell(item: ItemResult): string {
  if (item.outputTokens !== undefined) return String(item.outputTokens);
  return item.status === 'Completed' ? 'not counted' : '';
}

function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? 'n/a' : `${Math.round(value).toLocaleString('en-US')} ms`;
}

function rate(value: number | null): string {
  return value === null ? 'n/a' : `${value.toFixed(1)} results/min`;
}

function distribution(value: Distribution | null): string {
  return value === null
    ? 'n/a'
    : `p50 ${ms(value.p50)}, p90 ${ms(value.p90)}, p99 ${ms(value.p99)}, max ${ms(value.max)}`;
}
