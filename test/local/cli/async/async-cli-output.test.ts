import { resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { AsyncRunSummary, ItemResult } from '../../../../core/contracts/async-state.js';
import { AsyncProgressReporter } from '../../../../local/cli/async/progress.js';
import { formatAsyncSummary } from '../../../../local/cli/async/summary.js';
import { withLocalFiles } from '../../../../local/cli/shared.js';
import { FileObjectStore } from '../../../../local/platform/file-object-store.js';

const SUMMARY: AsyncRunSummary = {
  runId: 'r1',
  name: 'demo',
  outcome: 'partial',
  endpointName: 'mso-r1-ep-async',
  inputs: 2,
  completed: 1,
  failed: 1,
  timedOut: 0,
  makespanMs: 2500,
  drainRatePerMinute: 24,
  totalMs: { p50: 1200, p90: 1200, p99: 1200, max: 1200 },
  timeInSageMakerMs: { p50: 1100, p90: 1100, p99: 1100, max: 1100 },
  benchmark: {
    burstSize: 2,
    instancesAtStart: 0,
    scaleOutFromZeroMs: 1660,
    firstResultMs: 1800,
    drainMs: 2500,
    drainRatePerMinute: 24,
    timeInBacklogMs: { average: 900, maximum: 1500 },
    maxBacklogSize: 2,
    notes: [],
  },
  summaryUri: 's3://local-artifacts/runs/r1/async/summary.json',
  summaryMarkdownUri: 's3://local-artifacts/runs/r1/async/summary.md',
};

const ITEMS: ItemResult[] = [
  {
    itemIndex: 0,
    inputLocation: 's3://local-artifacts/inputs/a.bin',
    status: 'Completed',
    outputLocation: 's3://local-artifacts/runs/r1/async/output/u.out',
    timeInSageMakerMs: 1100,
    totalMs: 1200,
  },
  {
    itemIndex: 1,
    inputLocation: 's3://local-artifacts/inputs/b.bin',
    status: 'Failed',
    failureReason: 'Failed: ClientError: Received client error (400) from model',
    timeInSageMakerMs: null,
    totalMs: null,
  },
];

describe('formatAsyncSummary', () => {
  it('lists each input with its status, times and result or reason, then the run figures and files', () => {
    // Act
    const text = formatAsyncSummary({
      summary: SUMMARY,
      items: ITEMS,
      summaryPaths: { json: 'runs/r1/async/summary.json', markdown: 'runs/r1/async/summary.md' },
      displayUri: (uri) => uri.replace('s3://local-artifacts/', ''),
    });

    // Assert
    expect(text).toContain('endpoint mso-r1-ep-async, 2 input(s): 1 completed, 1 failed, 0 timed out');
    expect(text).toMatch(
      /^ {2}0 +inputs\/a\.bin +Completed +1,100 ms +1,200 ms +runs\/r1\/async\/output\/u\.out$/m,
    );
    expect(text).toMatch(
      /^ {2}1 +inputs\/b\.bin +Failed +n\/a +n\/a +Failed: ClientError: Received client error \(400\) from model$/m,
    );
    expect(text).toContain('Drain rate: 24.0 results/min; first invocation → last result: 2,500 ms');
    expect(text).toContain('scale-out from zero: 1,660 ms');
    expect(text).toContain('time in backlog: average 900 ms, max 1,500 ms; largest backlog: 2');
    expect(text).toMatch(
      /Summary files:\n {2}runs\/r1\/async\/summary\.json\n {2}runs\/r1\/async\/summary\.md\n$/,
    );
  });

  it('shows every local artifact URI as its file: inputs, results and the URIs in a failure reason', () => {
    // Prepare: the local CLI's display, the store's files relative to the working directory.
    const cwd = resolve('/tmp/project');
    const store = new FileObjectStore({
      rootDir: resolve(cwd, 'store'),
      mounts: { 's3://local-artifacts/runs/': resolve(cwd, 'runs') },
    });
    const failed: ItemResult = {
      itemIndex: 1,
      inputLocation: 's3://local-artifacts/inputs/b.bin',
      status: 'Failed',
      failureReason: 'Model error, see s3://local-artifacts/runs/r1/async/failures/v.out.',
      timeInSageMakerMs: null,
      totalMs: null,
    };

    // Act
    const text = formatAsyncSummary({
      summary: SUMMARY,
      items: [...ITEMS.slice(0, 1), failed],
      summaryPaths: { json: 'runs/r1/async/summary.json', markdown: 'runs/r1/async/summary.md' },
      displayUri: (uri) => withLocalFiles(uri, store, cwd),
    });

    // Assert
    expect(text).toMatch(
      /^ {2}0 +store\/local-artifacts\/inputs\/a\.bin +Completed +1,100 ms +1,200 ms +runs\/r1\/async\/output\/u\.out$/m,
    );
    expect(text).toMatch(
      /^ {2}1 +store\/local-artifacts\/inputs\/b\.bin +Failed +n\/a +n\/a +Model error, see runs\/r1\/async\/failures\/v\.out\.$/m,
    );
    expect(text).not.toContain('s3://');
  });

  it("adds each input's output tokens and the run's token figures to a generative run", () => {
    // Prepare
    const generative: AsyncRunSummary = {
      ...SUMMARY,
      generative: {
        format: 'openai',
        counted: 1,
        uncounted: 1,
        outputTokens: 42,
        inputTokens: 9,
        outputTokensPerInput: { p50: 42, p90: 42, p99: 42, max: 42 },
        outputTokensPerSecond: 16.8,
        msPerOutputToken: { p50: 26.19, p90: 26.19, p99: 26.19, max: 26.19 },
        notes: ['1 result not counted: the output object is gone: nothing to count'],
      },
    };
    const items: ItemResult[] = [{ ...ITEMS[0]!, outputTokens: 42, inputTokens: 9 }, ITEMS[1]!];

    // Act
    const text = formatAsyncSummary({
      summary: generative,
      items,
      summaryPaths: { json: 'runs/r1/async/summary.json', markdown: 'runs/r1/async/summary.md' },
      displayUri: (uri) => uri.replace('s3://local-artifacts/', ''),
    });

    // Assert
    expect(text).toMatch(/^ {2}#  +input +status +in SageMaker +total +tokens out +result or reason$/m);
    expect(text).toMatch(
      /^ {2}0 +inputs\/a\.bin +Completed +1,100 ms +1,200 ms +42 +runs\/r1\/async\/output\/u\.out$/m,
    );
    expect(text).toContain(
      [
        "Generated tokens (openai answers, the container's own counts): 42 out, 9 in, over 1 result(s); 1 not counted",
        '  per input: p50 42, p90 42, max 42 tokens; 16.8 tokens/s over the run',
        '  time in SageMaker per output token (queue included): p50 26.2 ms, p90 26.2 ms, max 26.2 ms',
        '  note: 1 result not counted: the output object is gone: nothing to count',
      ].join('\n'),
    );
  });

  it('says n/a for figures a run could not measure, and prints no benchmark section without one', () => {
    const { benchmark: _benchmark, ...plain } = SUMMARY;
    const text = formatAsyncSummary({
      summary: { ...plain, drainRatePerMinute: null, makespanMs: null },
      items: [],
      summaryPaths: { json: 'a', markdown: 'b' },
    });
    expect(text).toContain('Drain rate: n/a; first invocation → last result: n/a');
    expect(text).not.toContain('Benchmark:');
  });
});

describe('AsyncProgressReporter', () => {
  function reporter(isTTY: boolean) {
    const written: string[] = [];
    let now = 0;
    const progress = new AsyncProgressReporter({
      output: { write: (text) => written.push(text), isTTY },
      elapsedMs: () => now,
    });
    return { progress, written, advance: (ms: number) => (now += ms) };
  }
  const snapshot = {
    received: 20,
    completed: 3,
    failed: 0,
    queued: 15,
    inFlight: 2,
    instancesInService: 1,
    instancesStarting: 1,
    desiredInstanceCount: 2,
  };

  it('prints the endpoint counts when piped at most once a second', () => {
    // Prepare
    const { progress, written, advance } = reporter(false);

    // Act
    progress.onEndpoint(snapshot);
    advance(200);
    progress.onEndpoint({ ...snapshot, completed: 4 });
    advance(1000);
    progress.onEndpoint({ ...snapshot, completed: 5 });

    // Assert
    expect(written).toEqual([
      '[   0.0s] inputs: 20 sent · 15 queued · 2 at the model · 3 completed · 0 failed · instances 1 (→ 2)\n',
      '[   1.2s] inputs: 20 sent · 15 queued · 2 at the model · 5 completed · 0 failed · instances 1 (→ 2)\n',
    ]);
  });

  it('redraws the counts in place on a terminal, and clears them before a permanent line', () => {
    const { progress, written } = reporter(true);
    progress.onEndpoint(snapshot);
    progress.line('Summarizing…');
    expect(written[0]?.startsWith('\r\x1b[K[   0.0s] inputs: 20 sent')).toBe(true);
    expect(written[1]).toBe('\r\x1b[K[   0.0s] Summarizing…\n');
  });

  it('prints a scaling activity when it starts and when it ends, with the reason of a failure', () => {
    // Prepare
    const { progress, written } = reporter(false);
    const started = {
      startEpochMs: 1000,
      toInstanceCount: 2,
      status: 'InProgress',
      description: 'Setting desired instance count to 2. Cause: backlog',
    };

    // Act
    progress.onActivities([started]);
    progress.onActivities([started]);
    progress.onActivities([
      {
        ...started,
        status: 'Failed',
        endEpochMs: 2500,
        description: `${started.description}. Failed: model server exited`,
      },
    ]);

    // Assert
    expect(written).toEqual([
      '[   0.0s] Scaling: Setting desired instance count to 2. Cause: backlog\n',
      '[   0.0s] Scaling to 2 instance(s): Failed after 1.5 s (model server exited)\n',
    ]);
  });
});
