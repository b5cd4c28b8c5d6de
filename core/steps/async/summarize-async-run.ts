import {
  type AsyncBenchmarkFigures,
  type AsyncGenerativeFigures,
  type AsyncRunPlan,
  type AsyncRunSummary,
  type Distribution,
  type FailureReasonCount,
  type ItemResult,
  ItemStatuses,
  MAX_FAILURE_REASON_LENGTH,
  MAX_FAILURE_REASONS,
  type SummarizeAsyncRunEvent,
} from '../../contracts/index.js';
import { asyncRunOutcomeOf, batchResultsUri, asyncReportUris, writeAsyncReport } from '../../async/index.js';
import type { AsyncBacklogMetrics, AsyncEndpointObserver, Logger, ObjectStore } from '../../ports/index.js';

/**
 * State "Summarize async run": gathers every batch's results from S3 and writes the run's summary
 * (`summary.json` with one row per input, `summary.md` for people) and its report (`report.json`
 * and `report.html` with charts over time: write-async-report.ts), then returns the headline
 * figures. In benchmark mode it adds what no other tool reports for async endpoints: the delay to
 * scale out from zero, the time requests spent in the backlog, and the drain rate.
 */

export interface SummarizeAsyncRunDeps {
  readonly store: ObjectStore;
  /** Scaling activities and CloudWatch queue metrics; absent figures are reported as such. */
  readonly observer?: AsyncEndpointObserver;
  readonly logger: Logger;
  readonly nowEpochMs: () => number;
  /** A local run: its report says the figures come from this machine. */
  readonly measuredLocally: boolean;
}

export async function summarizeAsyncRun(
  event: SummarizeAsyncRunEvent,
  deps: SummarizeAsyncRunDeps,
): Promise<AsyncRunSummary> {
  const { plan } = event;
  const items = await readResults(plan, deps.store);
  const completed = items.filter((item) => item.status === ItemStatuses.completed);
  const invoked = numbers(items.map((item) => item.invokedAtEpochMs));
  const finished = numbers(completed.map((item) => item.finishedAtEpochMs));
  const firstInvokedMs = invoked.length === 0 ? undefined : Math.min(...invoked);
  const firstFinishedMs = finished.length === 0 ? undefined : Math.min(...finished);
  const lastFinishedMs = finished.length === 0 ? undefined : Math.max(...finished);

  const summaryUri = `${plan.runPrefixUri}async/summary.json`;
  const summaryMarkdownUri = `${plan.runPrefixUri}async/summary.md`;
  const summary: AsyncRunSummary = {
    runId: plan.runId,
    ...(plan.name === undefined ? {} : { name: plan.name }),
    outcome: asyncRunOutcomeOf({ inputs: items.length, completed: completed.length }),
    endpointName: plan.endpoint.endpointName,
    inputs: items.length,
    completed: completed.length,
    failed: items.filter((item) => item.status === ItemStatuses.failed).length,
    timedOut: items.filter((item) => item.status === ItemStatuses.timedOut).length,
    makespanMs:
      firstInvokedMs === undefined || lastFinishedMs === undefined ? null : lastFinishedMs - firstInvokedMs,
    drainRatePerMinute: drainRate(finished),
    totalMs: distribution(numbers(completed.map((item) => item.totalMs))),
    timeInSageMakerMs: distribution(numbers(completed.map((item) => item.timeInSageMakerMs))),
    ...(plan.benchmark === undefined
      ? {}
      : {
          benchmark: await benchmarkFigures(event, deps, {
            burstStartMs: firstInvokedMs,
            firstFinishedMs,
            lastFinishedMs,
            finished,
          }),
        }),
    ...(plan.generative === undefined
      ? {}
      : { generative: generativeFigures(plan.generative.format, completed, firstInvokedMs, lastFinishedMs) }),
    summaryUri,
    summaryMarkdownUri,
    ...asyncReportUris(plan.runPrefixUri),
    ...(plan.warnings === undefined || plan.warnings.length === 0 ? {} : { warnings: plan.warnings }),
    ...(completed.length === items.length ? {} : { failureReasons: failureReasonsOf(items) }),
  };
  await deps.store.putBytes(
    summaryUri,
    new TextEncoder().encode(JSON.stringify({ ...summary, items }, null, 2)),
    'application/json',
  );
  await deps.store.putBytes(
    summaryMarkdownUri,
    new TextEncoder().encode(renderSummaryMarkdown(summary, items)),
    'text/markdown',
  );
  await writeAsyncReport(
    { plan, endpointState: event.endpointState, summary, items },
    {
      store: deps.store,
      ...(deps.observer === undefined ? {} : { observer: deps.observer }),
      nowEpochMs: deps.nowEpochMs,
      measuredLocally: deps.measuredLocally,
    },
  );
  deps.logger.info('Async run summarized', {
    runId: plan.runId,
    outcome: summary.outcome,
    completed: summary.completed,
    failed: summary.failed,
    timedOut: summary.timedOut,
  });
  return summary;
}

/**
 * The distinct reasons inputs did not complete, with how many each, the most frequent first (then
 * the first input's order): a run whose every input failed for one reason says so in one line.
 */
export function failureReasonsOf(items: readonly ItemResult[]): FailureReasonCount[] {
  const counts = new Map<string, number>();
  for (const item of items) {
    if (item.status === ItemStatuses.completed) continue;
    // One line, no character that JSON escapes (FailureReasonCount says why).
    const text = (item.failureReason ?? item.status)
      .replace(/[\s\p{Cc}]+/gu, ' ')
      .replaceAll('"', "'")
      .replaceAll('\\', '/');
    const reason =
      text.length > MAX_FAILURE_REASON_LENGTH ? `${text.slice(0, MAX_FAILURE_REASON_LENGTH - 1)}…` : text;
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts]
    .map(([reason, inputs]) => ({ reason, inputs }))
    .sort((a, b) => b.inputs - a.inputs)
    .slice(0, MAX_FAILURE_REASONS);
}

async function readResults(plan: AsyncRunPlan, store: ObjectStore): Promise<ItemResult[]> {
  const batches = await Promise.all(
    plan.batches.map(async (batch) => {
      const bytes = await store.getBytes(batchResultsUri(plan.runPrefixUri, batch.batchIndex));
      return (JSON.parse(new TextDecoder().decode(bytes)) as { results: ItemResult[] }).results;
    }),
  );
  return batches.flat().sort((a, b) => a.itemIndex - b.itemIndex);
}

async function benchmarkFigures(
  event: SummarizeAsyncRunEvent,
  deps: SummarizeAsyncRunDeps,
  window: {
    readonly burstStartMs: number | undefined;
    readonly firstFinishedMs: number | undefined;
    readonly lastFinishedMs: number | undefined;
    readonly finished: readonly number[];
  },
): Promise<AsyncBenchmarkFigures> {
  const { plan, endpointState } = event;
  const notes: string[] = endpointState.note === undefined ? [] : [endpointState.note];
  const instancesAtStart = endpointState.instancesAtStart ?? null;
  const { burstStartMs, firstFinishedMs, lastFinishedMs } = window;
  const since = (at: number | undefined): number | null =>
    at === undefined || burstStartMs === undefined ? null : at - burstStartMs;

  let scaleOutFromZeroMs: number | null = null;
  let backlog: AsyncBacklogMetrics = {};
  if (deps.observer === undefined) {
    notes.push('no endpoint observer here: scaling activities and backlog metrics were not read');
  } else if (burstStartMs === undefined) {
    notes.push('no invocation time was recorded: scaling activities and backlog metrics were not read');
  } else {
    const { endpointName, variantName } = plan.endpoint;
    if (instancesAtStart === 0) {
      const activities = await deps.observer.scalingActivities(endpointName, variantName, burstStartMs);
      // A failed or unfinished activity added no capacity: only a successful one ends the wait.
      const firstOut = activities
        .filter(
          (activity) =>
            (activity.toInstanceCount ?? 0) >= 1 &&
            activity.status === SUCCESSFUL_ACTIVITY &&
            activity.endEpochMs !== undefined,
        )
        .sort((a, b) => a.startEpochMs - b.startEpochMs)[0];
      scaleOutFromZeroMs = firstOut?.endEpochMs === undefined ? null : firstOut.endEpochMs - burstStartMs;
      if (firstOut === undefined)
        notes.push('no completed scale-out activity was found after the burst started');
    }
    backlog = await deps.observer.backlogMetrics(
      endpointName,
      burstStartMs,
      lastFinishedMs ?? deps.nowEpochMs(),
    );
    if (backlog.timeInBacklogMs === undefined) {
      notes.push('TimeInBacklog had no data points yet (CloudWatch publishes with a delay of a few minutes)');
    }
  }
  return {
    burstSize: plan.benchmark?.burstSize ?? plan.itemCount,
    instancesAtStart,
    scaleOutFromZeroMs,
    firstResultMs: since(firstFinishedMs),
    drainMs: since(lastFinishedMs),
    drainRatePerMinute: drainRate(window.finished),
    timeInBacklogMs: backlog.timeInBacklogMs ?? null,
    maxBacklogSize: backlog.maxBacklogSize ?? null,
    notes,
  };
}

/** A generative run's tokens over its completed results (see `AsyncGenerativeFigures`). */
export function generativeFigures(
  format: AsyncGenerativeFigures['format'],
  completed: readonly ItemResult[],
  firstInvokedMs: number | undefined,
  lastFinishedMs: number | undefined,
): AsyncGenerativeFigures {
  const counted = completed.filter(
    (item): item is ItemResult & { outputTokens: number } => item.outputTokens !== undefined,
  );
  const outputTokens = counted.reduce((sum, item) => sum + item.outputTokens, 0);
  const inputCounts = numbers(counted.map((item) => item.inputTokens));
  const makespanMs =
    firstInvokedMs === undefined || lastFinishedMs === undefined ? 0 : lastFinishedMs - firstInvokedMs;
  const reasons = new Map<string, number>();
  for (const item of completed) {
    if (item.outputTokens === undefined) {
      const reason = item.tokensNote ?? 'no count';
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
  }
  return {
    format,
    counted: counted.length,
    uncounted: completed.length - counted.length,
    outputTokens,
    inputTokens: inputCounts.length === 0 ? null : inputCounts.reduce((sum, count) => sum + count, 0),
    outputTokensPerInput: distribution(counted.map((item) => item.outputTokens)),
    outputTokensPerSecond:
      counted.length === 0 || makespanMs <= 0 ? null : outputTokens / (makespanMs / 1000),
    msPerOutputToken: distribution(
      numbers(
        counted.map((item) =>
          item.timeInSageMakerMs === null || item.outputTokens === 0
            ? undefined
            : item.timeInSageMakerMs / item.outputTokens,
        ),
      ),
    ),
    notes: [...reasons].map(
      ([reason, count]) => `${count} result${count === 1 ? '' : 's'} not counted: ${reason}`,
    ),
  };
}

/** Application Auto Scaling's `StatusCode` of a scaling activity that completed (DescribeScalingActivities). */
const SUCCESSFUL_ACTIVITY = 'Successful';

/** Results per minute between the first and the last: the endpoint's sustained processing rate. */
export function drainRate(finishedEpochMs: readonly number[]): number | null {
  if (finishedEpochMs.length < 2) return null;
  const spanMs = Math.max(...finishedEpochMs) - Math.min(...finishedEpochMs);
  if (spanMs <= 0) return null;
  return ((finishedEpochMs.length - 1) / spanMs) * 60_000;
}

/** Nearest-rank percentiles (exact on the recorded values: a run has at most 700 inputs). */
export function distribution(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (quantile: number): number =>
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1))] ?? 0;
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1] ?? 0 };
}

function numbers(values: readonly (number | null | undefined)[]): number[] {
  return values.filter((value): value is number => typeof value === 'number' && Number.isFinite(value));
}

const MARKDOWN_ROWS = 100;

export function renderSummaryMarkdown(summary: AsyncRunSummary, items: readonly ItemResult[]): string {
  const ms = (value: number | null | undefined): string =>
    value === null || value === undefined ? 'n/a' : `${Math.round(value).toLocaleString('en-US')} ms`;
  const rate = (value: number | null): string => (value === null ? 'n/a' : `${value.toFixed(1)} / min`);
  const dist = (value: Distribution | null): string =>
    value === null
      ? 'n/a'
      : `p50 ${ms(value.p50)}, p90 ${ms(value.p90)}, p99 ${ms(value.p99)}, max ${ms(value.max)}`;
  const lines = [
    `# Async inference run ${summary.runId}${summary.name === undefined ? '' : ` — ${summary.name}`}`,
    '',
    `Outcome: **${summary.outcome}**. Endpoint \`${summary.endpointName}\`: ${summary.inputs} inputs, ${summary.completed} completed, ${summary.failed} failed, ${summary.timedOut} timed out.`,
    '',
    '| figure | value |',
    '|---|---|',
    `| first invocation → last result | ${ms(summary.makespanMs)} |`,
    `| drain rate | ${rate(summary.drainRatePerMinute)} |`,
    `| invocation → result (workflow) | ${dist(summary.totalMs)} |`,
    `| time in SageMaker (queue + processing) | ${dist(summary.timeInSageMakerMs)} |`,
  ];
  const benchmark = summary.benchmark;
  if (benchmark !== undefined) {
    lines.push(
      `| burst size | ${benchmark.burstSize} |`,
      `| instances at burst start | ${benchmark.instancesAtStart ?? 'n/a'} |`,
      `| scale-out from zero | ${ms(benchmark.scaleOutFromZeroMs)} |`,
      `| burst start → first result | ${ms(benchmark.firstResultMs)} |`,
      `| burst start → last result | ${ms(benchmark.drainMs)} |`,
      `| time in backlog (average / max) | ${
        benchmark.timeInBacklogMs === null
          ? 'n/a'
          : `${ms(benchmark.timeInBacklogMs.average)} / ${ms(benchmark.timeInBacklogMs.maximum)}`
      } |`,
      `| largest backlog | ${benchmark.maxBacklogSize ?? 'n/a'} |`,
    );
    if (benchmark.notes.length > 0) lines.push('', ...benchmark.notes.map((note) => `- ${note}`));
  }
  const generative = summary.generative;
  if (generative !== undefined) lines.push(...generativeLines(generative, dist));
  const reasons = summary.failureReasons ?? [];
  if (reasons.length > 0) {
    lines.push(
      '',
      'Why inputs did not complete (the most frequent reasons):',
      '',
      ...reasons.map(
        ({ reason, inputs }) => `- ${inputs} input${inputs === 1 ? '' : 's'}: ${tableCell(reason)}`,
      ),
    );
  }
  const tokens = generative !== undefined;
  lines.push(
    '',
    `| # | input | status | result or reason | total |${tokens ? ' output tokens |' : ''}`,
    `|---|---|---|---|---|${tokens ? '---|' : ''}`,
  );
  for (const item of items.slice(0, MARKDOWN_ROWS)) {
    const detail = item.outputLocation ?? item.failureReason ?? '';
    const tokenCell = !tokens
      ? ''
      : ` ${item.outputTokens ?? (item.status === ItemStatuses.completed ? 'not counted' : '')} |`;
    lines.push(
      `| ${item.itemIndex} | ${tableCell(item.inputLocation)} | ${item.status} | ${tableCell(detail)} | ${ms(item.totalMs)} |${tokenCell}`,
    );
  }
  if (items.length > MARKDOWN_ROWS) {
    lines.push('', `${items.length - MARKDOWN_ROWS} more inputs are listed in summary.json.`);
  }
  return `${lines.join('\n')}\n`;
}

/** The summary's tokens part: its figures, then why results were not counted. */
function generativeLines(
  generative: AsyncGenerativeFigures,
  dist: (value: Distribution | null) => string,
): string[] {
  const count = (value: number | null): string => (value === null ? 'n/a' : value.toLocaleString('en-US'));
  const perToken = (value: Distribution | null): string =>
    value === null
      ? 'n/a'
      : `p50 ${value.p50.toFixed(1)} ms, p90 ${value.p90.toFixed(1)} ms, p99 ${value.p99.toFixed(1)} ms, max ${value.max.toFixed(1)} ms`;
  const lines = [
    '',
    `Generated tokens (${generative.format} answers, the container's own counts): ${generative.counted} results counted, ${generative.uncounted} not.`,
    '',
    '| figure | value |',
    '|---|---|',
    `| output tokens | ${count(generative.outputTokens)} |`,
    `| input tokens | ${count(generative.inputTokens)} |`,
    `| output tokens per input | ${dist(generative.outputTokensPerInput).replaceAll(' ms', '')} |`,
    `| output tokens per second (over the makespan) | ${generative.outputTokensPerSecond === null ? 'n/a' : generative.outputTokensPerSecond.toFixed(1)} |`,
    `| time in SageMaker per output token (queue included) | ${perToken(generative.msPerOutputToken)} |`,
  ];
  if (generative.notes.length > 0) lines.push('', ...generative.notes.map((note) => `- ${note}`));
  return lines;
}

/** S3 keys and failure reasons may hold `|` and line breaks, which would break the table's row. */
function tableCell(text: string): string {
  return text.replaceAll('|', '\\|').replace(/\r?\n/g, ' ');
}
