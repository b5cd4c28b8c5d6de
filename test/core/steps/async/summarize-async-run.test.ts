import { beforeEach, describe, expect, it } from '@jest/globals';
import { batchResultsUri } from '../../../../core/async/batch-results.js';
import {
  AsyncEndpointPhases,
  type AsyncEndpointState,
  type AsyncRunPlan,
  type AsyncRunSummary,
  type BatchDescriptor,
  type ItemResult,
  ItemStatuses,
} from '../../../../core/contracts/async-state.js';
import {
  distribution,
  drainRate,
  summarizeAsyncRun,
  type SummarizeAsyncRunDeps,
} from '../../../../core/steps/async/summarize-async-run.js';
import type { ScalingActivity } from '../../../../core/ports/index.js';
import type { AsyncReport } from '../../../../core/report/async-report.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { FakeEndpointObserver } from '../../async/support/async-fakes.js';

const RUN_ID = 'nightly-2026-05-23';
const RUN_PREFIX = `s3://mso-artifacts/runs/${RUN_ID}/`;
const ENDPOINT = 'mso-nightly-2026-05-23-558c6ef5-ep-async';
/** The burst: every input invoked at this instant. */
const START_MS = Date.parse('2026-05-23T04:00:00.000Z');
const NOW_MS = START_MS + 3_600_000;
const PLANNED_MS = START_MS - 1_800_000;
/** The observer's reads for the benchmark's figures, without the report's (write-async-report.ts). */
function figureQueries(queries: readonly string[]): string[] {
  return queries.filter(
    (query) => !query.startsWith('backlogSeries') && !query.endsWith(`since ${PLANNED_MS}`),
  );
}
const SECOND = 1000;

let store: MemoryObjectStore;

beforeEach(() => {
  store = new MemoryObjectStore();
});

function plan(batches: readonly BatchDescriptor[], overrides: Partial<AsyncRunPlan> = {}): AsyncRunPlan {
  const itemCount = batches.reduce((sum, batch) => sum + batch.itemCount, 0);
  return {
    runId: RUN_ID,
    name: 'nightly scoring',
    runPrefixUri: RUN_PREFIX,
    manifestUri: `${RUN_PREFIX}async/inputs.json`,
    itemCount,
    batches,
    batchConcurrency: 1,
    itemConcurrency: 40,
    invocation: {
      endpointName: ENDPOINT,
      contentType: 'application/json',
      invocationTimeoutSeconds: 900,
      requestTtlSeconds: 21_600,
      waitTimeoutSeconds: 26_100,
    },
    endpoint: {
      action: 'deploy',
      endpointName: ENDPOINT,
      endpointConfigName: 'mso-nightly-2026-05-23-558c6ef5-ec-async',
      modelName: 'mso-nightly-2026-05-23-558c6ef5-m-async',
      variantName: 'AllTraffic',
      keepAfterRun: false,
    },
    tags: {},
    plannedAtEpochMs: PLANNED_MS,
    ...overrides,
  };
}

const READY: AsyncEndpointState = {
  phase: AsyncEndpointPhases.ready,
  waitSeconds: 0,
  deadlineEpochMs: START_MS,
};
const READY_AT_ZERO: AsyncEndpointState = { ...READY, instancesAtStart: 0 };

function done(
  itemIndex: number,
  finishedAfterMs: number,
  timeInSageMakerMs: number | null = 1000,
): ItemResult {
  return {
    itemIndex,
    inputLocation: `s3://mso-artifacts/inputs/${itemIndex}.json`,
    status: ItemStatuses.completed,
    inferenceId: `mso-nightly-item-${itemIndex}`,
    outputLocation: `${RUN_PREFIX}async/output/${itemIndex}.out`,
    timeInSageMakerMs,
    totalMs: finishedAfterMs + 500,
    invokedAtEpochMs: START_MS,
    finishedAtEpochMs: START_MS + finishedAfterMs,
  };
}

function failed(itemIndex: number, failureReason: string): ItemResult {
  return {
    itemIndex,
    inputLocation: `s3://mso-artifacts/inputs/${itemIndex}.json`,
    status: ItemStatuses.failed,
    failureReason,
    timeInSageMakerMs: 100,
    totalMs: 700,
    invokedAtEpochMs: START_MS,
    finishedAtEpochMs: START_MS + 600,
  };
}

function timedOut(itemIndex: number): ItemResult {
  return {
    itemIndex,
    inputLocation: `s3://mso-artifacts/inputs/${itemIndex}.json`,
    status: ItemStatuses.timedOut,
    failureReason: "States.Timeout: no notification arrived before the wait's timeout",
    timeInSageMakerMs: null,
    totalMs: null,
  };
}

/** Writes each batch's results as "Record batch results" does, and returns the batches. */
function seedBatches(...batches: ItemResult[][]): BatchDescriptor[] {
  let first = 0;
  return batches.map((results, batchIndex) => {
    store.seed(batchResultsUri(RUN_PREFIX, batchIndex), JSON.stringify({ batchIndex, results }));
    const descriptor = { batchIndex, firstItemIndex: first, itemCount: results.length };
    first += results.length;
    return descriptor;
  });
}

function summarize(
  runPlan: AsyncRunPlan,
  endpointState: AsyncEndpointState,
  overrides: Partial<SummarizeAsyncRunDeps> = {},
): Promise<AsyncRunSummary> {
  return summarizeAsyncRun(
    { plan: runPlan, endpointState, batches: [] },
    { store, logger: silentLogger, nowEpochMs: () => NOW_MS, measuredLocally: false, ...overrides },
  );
}

function written(name: 'summary.json' | 'summary.md' | 'report.json' | 'report.html'): string {
  const object = store.objects.get(`${RUN_PREFIX}async/${name}`);
  if (object === undefined) throw new Error(`${name} was not written`);
  return new TextDecoder().decode(object.body);
}

const ACTIVITIES: ScalingActivity[] = [
  {
    startEpochMs: START_MS + 20 * SECOND,
    endEpochMs: START_MS + 30 * SECOND,
    toInstanceCount: 1,
    status: 'Failed',
    description: 'Setting desired instance count to 1.',
  },
  {
    startEpochMs: START_MS + 60 * SECOND,
    endEpochMs: START_MS + 250 * SECOND,
    toInstanceCount: 1,
    status: 'Successful',
    description: 'Setting desired instance count to 1.',
  },
  {
    startEpochMs: START_MS + 300 * SECOND,
    endEpochMs: START_MS + 420 * SECOND,
    toInstanceCount: 3,
    status: 'Successful',
    description: 'Setting desired instance count to 3.',
  },
];

describe('summarizeAsyncRun', () => {
  it('reads every batch and counts each outcome, one row per input in index order', async () => {
    // Arrange
    const batches = seedBatches(
      [done(0, 2 * SECOND), failed(1, 'Failed: model error'), done(2, 4 * SECOND)],
      [timedOut(3), done(4, 3 * SECOND)],
    );

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary).toMatchObject({
      runId: RUN_ID,
      name: 'nightly scoring',
      endpointName: ENDPOINT,
      inputs: 5,
      completed: 3,
      failed: 1,
      timedOut: 1,
      summaryUri: `${RUN_PREFIX}async/summary.json`,
      summaryMarkdownUri: `${RUN_PREFIX}async/summary.md`,
    });
    const document = JSON.parse(written('summary.json')) as { items: ItemResult[] };
    expect(document.items.map((item) => [item.itemIndex, item.status])).toEqual([
      [0, 'Completed'],
      [1, 'Failed'],
      [2, 'Completed'],
      [3, 'TimedOut'],
      [4, 'Completed'],
    ]);
  });

  it.each<[string, number[]]>([
    ['completed', [0, 1]],
    ['partial', [0]],
    ['all-inputs-failed', []],
  ])('calls a run %s by how many of its inputs completed', async (outcome, completedIndexes) => {
    // Arrange: two inputs; those not completed failed.
    const batches = seedBatches(
      [0, 1].map((i) =>
        completedIndexes.includes(i) ? done(i, 2 * SECOND) : failed(i, 'Failed: model error'),
      ),
    );

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary.outcome).toBe(outcome);
    expect(written('summary.md')).toContain(`Outcome: **${outcome}**.`);
  });

  it('summarises why inputs did not complete: each distinct reason with its count, the most frequent first', async () => {
    // Arrange: one reason twice, another once, one timeout; a reason on two lines with quotes.
    const batches = seedBatches([
      failed(0, 'Failed: model error'),
      failed(1, 'Failed: ClientError: message "{\\"error\\": \\"bad\\"}"\nat line 2'),
      failed(2, 'Failed: model error'),
      timedOut(3),
      done(4, 2 * SECOND),
    ]);

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert: one line each, no character JSON escapes (the cause built from it must survive the local engine).
    expect(summary.failureReasons).toEqual([
      { reason: 'Failed: model error', inputs: 2 },
      { reason: "Failed: ClientError: message '{/'error/': /'bad/'}' at line 2", inputs: 1 },
      { reason: "States.Timeout: no notification arrived before the wait's timeout", inputs: 1 },
    ]);
    expect(written('summary.md')).toContain(
      [
        'Why inputs did not complete (the most frequent reasons):',
        '',
        '- 2 inputs: Failed: model error',
        "- 1 input: Failed: ClientError: message '{/'error/': /'bad/'}' at line 2",
      ].join('\n'),
    );
  });

  it('lists no failure reasons when every input completed', async () => {
    // Arrange
    const batches = seedBatches([done(0, 2 * SECOND)]);

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary.failureReasons).toBeUndefined();
    expect(written('summary.md')).not.toContain('Why inputs did not complete');
  });

  it('measures the makespan from the first invocation to the last result', async () => {
    // Arrange
    const batches = seedBatches([done(0, 2 * SECOND), done(1, 9 * SECOND), timedOut(2)]);

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary.makespanMs).toBe(9 * SECOND);
  });

  it('gives the drain rate between the first and the last result', async () => {
    // Arrange: 5 results over 60 s → 4 intervals per minute.
    const batches = seedBatches([0, 15, 30, 45, 60].map((s, i) => done(i, (s + 10) * SECOND)));

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary.drainRatePerMinute).toBe(4);
  });

  it('gives nearest-rank distributions of the completed inputs only', async () => {
    // Arrange: totals 1,500 … 100,500 ms; timeInSageMaker 1 … 100 s; a failure that must not count.
    const results = Array.from({ length: 100 }, (_, i) => done(i, (i + 1) * SECOND, (i + 1) * SECOND));
    const batches = seedBatches(results.slice(0, 40), results.slice(40, 80), [
      ...results.slice(80),
      failed(100, 'x'),
    ]);

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary.timeInSageMakerMs).toEqual({ p50: 50_000, p90: 90_000, p99: 99_000, max: 100_000 });
    expect(summary.totalMs).toEqual({ p50: 50_500, p90: 90_500, p99: 99_500, max: 100_500 });
  });

  it('reports no figures when nothing completed', async () => {
    // Arrange
    const batches = seedBatches([timedOut(0), timedOut(1)]);

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary).toMatchObject({
      completed: 0,
      makespanMs: null,
      drainRatePerMinute: null,
      totalMs: null,
      timeInSageMakerMs: null,
    });
    expect(written('summary.md')).toContain('| first invocation → last result | n/a |');
  });

  it('adds no benchmark figures outside benchmark mode, and reads only what the report draws', async () => {
    // Arrange
    const batches = seedBatches([done(0, SECOND)]);
    const observer = new FakeEndpointObserver(ACTIVITIES);

    // Act
    const summary = await summarize(plan(batches), READY, { observer });

    // Assert
    expect(summary).not.toHaveProperty('benchmark');
    expect(observer.queries).toEqual([
      `scalingActivities ${ENDPOINT}/AllTraffic since ${PLANNED_MS}`,
      `backlogSeries ${ENDPOINT} ${START_MS}-${NOW_MS}`,
    ]);
  });

  it('writes the report beside the summary and names its files in the summary', async () => {
    // Arrange
    const batches = seedBatches([done(0, 2 * SECOND), failed(1, 'Failed: model error')]);

    // Act
    const summary = await summarize(plan(batches), { ...READY, instancesAtStart: 1 });

    // Assert
    expect(summary.reportUri).toBe(`${RUN_PREFIX}async/report.json`);
    expect(summary.reportHtmlUri).toBe(`${RUN_PREFIX}async/report.html`);
    const report = JSON.parse(written('report.json')) as AsyncReport;
    expect(report).toMatchObject({
      kind: 'async-inference',
      runId: RUN_ID,
      outcome: 'partial',
      counts: { inputs: 2, completed: 1, failed: 1, timedOut: 0 },
      measuredLocally: false,
    });
    expect(report.notes[0]).toBe(
      'no endpoint observer here: the scaling activities and the backlog were not read',
    );
    expect(written('report.html')).toContain('<h1>Async inference report: nightly scoring');
    expect(store.objects.get(`${RUN_PREFIX}async/report.html`)?.contentType).toBe('text/html');
  });

  it('writes a markdown summary with the headline figures and one row per input', async () => {
    // Arrange
    const batches = seedBatches([done(0, 2 * SECOND), failed(1, 'Failed: model error')]);

    // Act
    await summarize(plan(batches), READY);

    // Assert
    const markdown = written('summary.md');
    expect(markdown).toContain(`# Async inference run ${RUN_ID} — nightly scoring`);
    expect(markdown).toContain(`Endpoint \`${ENDPOINT}\`: 2 inputs, 1 completed, 1 failed, 0 timed out.`);
    expect(markdown).toContain(
      `| 0 | s3://mso-artifacts/inputs/0.json | Completed | ${RUN_PREFIX}async/output/0.out | 2,500 ms |`,
    );
    expect(markdown).toContain(
      '| 1 | s3://mso-artifacts/inputs/1.json | Failed | Failed: model error | 700 ms |',
    );
    expect(store.objects.get(`${RUN_PREFIX}async/summary.md`)?.contentType).toBe('text/markdown');
  });

  it('escapes | and line breaks in markdown cells, so a row stays one row', async () => {
    // Arrange
    const reason = failed(0, 'ModelError: expected a|b\nthen c');
    const batches = seedBatches([{ ...reason, inputLocation: 's3://mso-artifacts/inputs/a|b.json' }]);

    // Act
    await summarize(plan(batches), READY);

    // Assert
    expect(written('summary.md')).toContain(
      '| 0 | s3://mso-artifacts/inputs/a\\|b.json | Failed | ModelError: expected a\\|b then c | 700 ms |',
    );
  });

  it('lists at most 100 inputs in markdown and points to summary.json for the rest', async () => {
    // Arrange
    const results = Array.from({ length: 120 }, (_, i) => done(i, SECOND));
    const batches = seedBatches(results.slice(0, 40), results.slice(40, 80), results.slice(80));

    // Act
    await summarize(plan(batches), READY);

    // Assert
    const markdown = written('summary.md');
    expect(markdown).toContain('| 99 | s3://mso-artifacts/inputs/99.json |');
    expect(markdown).not.toContain('| 100 | s3://mso-artifacts/inputs/100.json |');
    expect(markdown).toContain('20 more inputs are listed in summary.json.');
  });

  it('fails when a batch has no results file', async () => {
    // Arrange
    const batches = seedBatches([done(0, SECOND)]);

    // Act
    const run = summarize(plan([...batches, { batchIndex: 1, firstItemIndex: 1, itemCount: 1 }]), READY);

    // Assert
    await expect(run).rejects.toThrow(`No object at ${RUN_PREFIX}async/results/batch-0001.json`);
  });
});

describe('summarizeAsyncRun in benchmark mode', () => {
  const benchmark = { burstSize: 4 };

  function burst(): BatchDescriptor[] {
    return seedBatches([
      done(0, 260 * SECOND),
      done(1, 275 * SECOND),
      done(2, 290 * SECOND),
      done(3, 320 * SECOND),
    ]);
  }

  it('measures the scale-out from zero, the first result, the drain and the backlog', async () => {
    // Arrange
    const observer = new FakeEndpointObserver(ACTIVITIES, {
      timeInBacklogMs: { average: 180_000, maximum: 250_000 },
      maxBacklogSize: 4,
    });

    // Act
    const summary = await summarize(plan(burst(), { benchmark }), READY_AT_ZERO, { observer });

    // Assert
    expect(summary.benchmark).toEqual({
      burstSize: 4,
      instancesAtStart: 0,
      // The failed activity at +30 s added no instance: the successful one ended at +250 s.
      scaleOutFromZeroMs: 250 * SECOND,
      firstResultMs: 260 * SECOND,
      drainMs: 320 * SECOND,
      drainRatePerMinute: 3,
      timeInBacklogMs: { average: 180_000, maximum: 250_000 },
      maxBacklogSize: 4,
      notes: [],
    });
    expect(figureQueries(observer.queries)).toEqual([
      `scalingActivities ${ENDPOINT}/AllTraffic since ${START_MS}`,
      `backlogMetrics ${ENDPOINT} ${START_MS}-${START_MS + 320 * SECOND}`,
    ]);
  });

  it('writes the benchmark figures and notes into the markdown', async () => {
    // Arrange
    const observer = new FakeEndpointObserver(ACTIVITIES);

    // Act
    await summarize(plan(burst(), { benchmark }), READY_AT_ZERO, { observer });

    // Assert
    const markdown = written('summary.md');
    expect(markdown).toContain('| scale-out from zero | 250,000 ms |');
    expect(markdown).toContain('| burst start → first result | 260,000 ms |');
    expect(markdown).toContain('| time in backlog (average / max) | n/a |');
    expect(markdown).toContain('- TimeInBacklog had no data points yet');
  });

  it('does not measure the scale-out when the burst did not start from zero, and keeps the note why', async () => {
    // Arrange
    const observer = new FakeEndpointObserver(ACTIVITIES, { maxBacklogSize: 4 });
    const note =
      'the endpoint still had 2 instance(s) at the scale-in deadline: the scale-out delay from zero was not measured';

    // Act
    const summary = await summarize(
      plan(burst(), { benchmark }),
      { ...READY, instancesAtStart: 2, note },
      { observer },
    );

    // Assert
    expect(summary.benchmark).toMatchObject({
      instancesAtStart: 2,
      scaleOutFromZeroMs: null,
      maxBacklogSize: 4,
    });
    expect(summary.benchmark?.notes[0]).toBe(note);
    expect(figureQueries(observer.queries).filter((query) => query.startsWith('scalingActivities'))).toEqual(
      [],
    );
  });

  it('notes that no scale-out completed when no successful activity followed the burst', async () => {
    // Arrange
    const failedOnly = ACTIVITIES.filter((activity) => activity.status === 'Failed');
    const observer = new FakeEndpointObserver(failedOnly, { timeInBacklogMs: { average: 1, maximum: 2 } });

    // Act
    const summary = await summarize(plan(burst(), { benchmark }), READY_AT_ZERO, { observer });

    // Assert
    expect(summary.benchmark?.scaleOutFromZeroMs).toBeNull();
    expect(summary.benchmark?.notes).toEqual([
      'no completed scale-out activity was found after the burst started',
    ]);
  });

  it('notes that CloudWatch had no backlog data yet', async () => {
    // Arrange
    const observer = new FakeEndpointObserver(ACTIVITIES, {});

    // Act
    const summary = await summarize(plan(burst(), { benchmark }), READY_AT_ZERO, { observer });

    // Assert
    expect(summary.benchmark).toMatchObject({ timeInBacklogMs: null, maxBacklogSize: null });
    expect(summary.benchmark?.notes).toEqual([
      'TimeInBacklog had no data points yet (CloudWatch publishes with a delay of a few minutes)',
    ]);
  });

  it('notes that no observer was there, and still gives the figures the results give', async () => {
    // Act
    const summary = await summarize(plan(burst(), { benchmark }), READY_AT_ZERO);

    // Assert
    expect(summary.benchmark).toEqual({
      burstSize: 4,
      instancesAtStart: 0,
      scaleOutFromZeroMs: null,
      firstResultMs: 260 * SECOND,
      drainMs: 320 * SECOND,
      drainRatePerMinute: 3,
      timeInBacklogMs: null,
      maxBacklogSize: null,
      notes: ['no endpoint observer here: scaling activities and backlog metrics were not read'],
    });
  });

  it('notes that nothing was read when no invocation time was recorded', async () => {
    // Arrange
    const batches = seedBatches([timedOut(0), timedOut(1)]);
    const observer = new FakeEndpointObserver(ACTIVITIES);

    // Act
    const summary = await summarize(plan(batches, { benchmark: { burstSize: 2 } }), READY_AT_ZERO, {
      observer,
    });

    // Assert
    expect(summary.benchmark).toMatchObject({ scaleOutFromZeroMs: null, firstResultMs: null, drainMs: null });
    expect(summary.benchmark?.notes).toEqual([
      'no invocation time was recorded: scaling activities and backlog metrics were not read',
    ]);
    expect(observer.queries).toEqual([]);
  });

  it('reads the backlog until now when no result arrived', async () => {
    // Arrange: invoked, then timed out: no finish time.
    const batches = seedBatches([{ ...timedOut(0), invokedAtEpochMs: START_MS }]);
    const observer = new FakeEndpointObserver([], {});

    // Act
    await summarize(plan(batches, { benchmark: { burstSize: 1 } }), READY, { observer });

    // Assert
    expect(figureQueries(observer.queries)).toEqual([`backlogMetrics ${ENDPOINT} ${START_MS}-${NOW_MS}`]);
  });
});

describe('summarizeAsyncRun of a generative run', () => {
  const generativePlan = (batches: readonly BatchDescriptor[]): AsyncRunPlan =>
    plan(batches, { generative: { format: 'tgi' } });
  const withTokens = (result: ItemResult, outputTokens: number, inputTokens?: number): ItemResult => ({
    ...result,
    outputTokens,
    ...(inputTokens === undefined ? {} : { inputTokens }),
  });

  it("sums the counted results' tokens and gives them per input, per second and per token's time", async () => {
    // Arrange: 3 results over 4 s; times in SageMaker 1,000 ms each.
    const batches = seedBatches([
      withTokens(done(0, 2 * SECOND), 10, 5),
      withTokens(done(1, 3 * SECOND), 20, 6),
      withTokens(done(2, 4 * SECOND), 50),
      failed(3, 'Failed: model error'),
    ]);

    // Act
    const summary = await summarize(generativePlan(batches), READY);

    // Assert: 80 tokens over the 4 s makespan; per token 1,000 ms ÷ 10, 20, 50.
    expect(summary.generative).toEqual({
      format: 'tgi',
      counted: 3,
      uncounted: 0,
      outputTokens: 80,
      inputTokens: 11,
      outputTokensPerInput: { p50: 20, p90: 50, p99: 50, max: 50 },
      outputTokensPerSecond: 20,
      msPerOutputToken: { p50: 50, p90: 100, p99: 100, max: 100 },
      notes: [],
    });
  });

  it('counts the results without counts apart, with each reason once and how many', async () => {
    // Arrange
    const note = 'the output has no details.generated_tokens: send "parameters": {"details": true}';
    const batches = seedBatches([
      withTokens(done(0, 2 * SECOND), 10),
      { ...done(1, 3 * SECOND), tokensNote: note },
      { ...done(2, 4 * SECOND), tokensNote: note },
    ]);

    // Act
    const summary = await summarize(generativePlan(batches), READY);

    // Assert
    expect(summary.generative).toMatchObject({
      counted: 1,
      uncounted: 2,
      outputTokens: 10,
      inputTokens: null,
      notes: [`2 results not counted: ${note}`],
    });
  });

  it('gives no rates when nothing was counted', async () => {
    // Arrange
    const batches = seedBatches([
      { ...done(0, 2 * SECOND), tokensNote: 'the output object is gone: nothing to count' },
    ]);

    // Act
    const summary = await summarize(generativePlan(batches), READY);

    // Assert
    expect(summary.generative).toMatchObject({
      counted: 0,
      outputTokens: 0,
      outputTokensPerInput: null,
      outputTokensPerSecond: null,
      msPerOutputToken: null,
    });
  });

  it('writes the tokens into the markdown, and each input its tokens', async () => {
    // Arrange
    const batches = seedBatches([withTokens(done(0, 2 * SECOND), 10, 5), failed(1, 'Failed: model error')]);

    // Act
    await summarize(generativePlan(batches), READY);

    // Assert
    const markdown = written('summary.md');
    expect(markdown).toContain(
      "Generated tokens (tgi answers, the container's own counts): 1 results counted, 0 not.",
    );
    expect(markdown).toContain('| output tokens | 10 |');
    expect(markdown).toContain('| output tokens per second (over the makespan) | 5.0 |');
    expect(markdown).toContain(
      `| 0 | s3://mso-artifacts/inputs/0.json | Completed | ${RUN_PREFIX}async/output/0.out | 2,500 ms | 10 |`,
    );
    expect(markdown).toContain(
      '| 1 | s3://mso-artifacts/inputs/1.json | Failed | Failed: model error | 700 ms |  |',
    );
  });

  it('adds no token figures to a run that is not generative', async () => {
    // Arrange
    const batches = seedBatches([withTokens(done(0, 2 * SECOND), 10)]);

    // Act
    const summary = await summarize(plan(batches), READY);

    // Assert
    expect(summary).not.toHaveProperty('generative');
    expect(written('summary.md')).not.toContain('Generated tokens');
  });
});

describe('distribution', () => {
  it('takes the nearest rank: the smallest value with at least q of the values at or below it', () => {
    expect(distribution([10, 1, 9, 2, 8, 3, 7, 4, 6, 5])).toEqual({ p50: 5, p90: 9, p99: 10, max: 10 });
  });

  it('gives the single value for every percentile of one value', () => {
    expect(distribution([42])).toEqual({ p50: 42, p90: 42, p99: 42, max: 42 });
  });

  it('gives null for no value', () => {
    expect(distribution([])).toBeNull();
  });
});

describe('drainRate', () => {
  it('counts intervals per minute between the first and the last result', () => {
    expect(drainRate([0, 30_000, 60_000, 90_000, 120_000])).toBe(2);
  });

  it('gives null for fewer than two results or results all at the same instant', () => {
    expect(drainRate([5])).toBeNull();
    expect(drainRate([5, 5, 5])).toBeNull();
  });
});
