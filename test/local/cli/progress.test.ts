import { describe, expect, it } from '@jest/globals';
import type { LoadTestProgress } from '../../../core/load-test/index.js';
import { ProgressReporter } from '../../../local/cli/progress.js';
import type { JsonValue, RunnerEvent } from '../../../local/runner/index.js';

function reporter(options: { isTTY?: boolean } = {}) {
  const written: string[] = [];
  let now = 0;
  const progress = new ProgressReporter({
    output: { write: (text) => written.push(text), isTTY: options.isTTY ?? false },
    elapsedMs: () => now,
    serverOf: () => ({ pid: 4242, url: 'http://127.0.0.1:5000', workers: 2, intraOpThreads: 1 }),
  });
  return {
    progress,
    written,
    at: (ms: number) => {
      now = ms;
    },
  };
}

const entered = (stateName: string, input: JsonValue): RunnerEvent => ({
  type: 'StateEntered',
  timestamp: 0,
  stateName,
  stateType: 'Task',
  input,
});
const exited = (stateName: string, output: JsonValue): RunnerEvent => ({
  type: 'StateExited',
  timestamp: 0,
  stateName,
  stateType: 'Task',
  input: {},
  output,
});

function load(
  overrides: Partial<LoadTestProgress & { candidateId: string }>,
): LoadTestProgress & { candidateId: string } {
  return {
    candidateId: 'c1',
    workerIndex: 0,
    stepIndex: 1,
    load: 4,
    phase: 'measure',
    secondsIntoWindow: 1,
    requests: 400,
    tps: 412.4,
    p95Ms: 9.83,
    errors: 0,
    inFlight: 4,
    late: 0,
    dropped: 0,
    ...overrides,
  };
}

const PLAN = {
  plan: {
    loadPlan: { model: 'closed', steps: [1, 4, 8], warmupSeconds: 1, stepDurationSeconds: 5 },
    candidates: [{ id: 'c1' }, { id: 'c2' }],
  },
};

describe('ProgressReporter', () => {
  it('announces the plan with its candidates and load steps', () => {
    // Prepare
    const { progress, written, at } = reporter();
    at(12_345);

    // Act
    progress.onRunnerEvent(exited('Validate and plan', PLAN));

    // Assert
    expect(written).toEqual([
      '[  12.3s] Planned 2 candidate(s): c1, c2; load steps [1, 4, 8] (concurrency), 1 s warm-up + 5 s each\n',
    ]);
  });

  it('shows a candidate’s step with its requests/s and p95', () => {
    // Prepare
    const { progress, written } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));

    // Act
    progress.onLoadProgress(load({}));

    // Assert
    expect(written.at(-1)).toBe(
      '[   0.0s] Benchmark each candidate › c1: step 2/3 (concurrency 4) 412 req/s, p95 9.8 ms\n',
    );
  });

  it('shows TTFT, ITL and tokens per second instead of the p95 for a streamed step', () => {
    // Prepare
    const { progress, written } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));

    // Act
    progress.onLoadProgress(
      load({ stream: { ttftP95Ms: 142.6, itlP95Ms: 11.25, outputTokensPerSecond: 301.4 } }),
    );

    // Assert
    expect(written.at(-1)).toBe(
      '[   0.0s] Benchmark each candidate › c1: step 2/3 (concurrency 4) 412 req/s, TTFT p95 143 ms, ITL p95 11.3 ms, 301 tokens/s\n',
    );
  });

  it('prints measure figures at most every 2 s per candidate when piped, and each finished step', () => {
    // Prepare
    const { progress, written, at } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));
    const before = written.length;

    // Act
    progress.onLoadProgress(load({}));
    at(1000);
    progress.onLoadProgress(load({ tps: 420 }));
    at(2000);
    progress.onLoadProgress(load({ tps: 430 }));
    at(3000);
    progress.onLoadProgress(load({ phase: 'drain', tps: 431 }));

    // Assert
    expect(written.slice(before).map((line) => line.slice(10).trimEnd())).toEqual([
      'Benchmark each candidate › c1: step 2/3 (concurrency 4) 412 req/s, p95 9.8 ms',
      'Benchmark each candidate › c1: step 2/3 (concurrency 4) 430 req/s, p95 9.8 ms',
      'Benchmark each candidate › c1: step 2/3 (concurrency 4) done: 431 req/s, p95 9.8 ms',
    ]);
  });

  it('redraws live figures on one line on a terminal, and ends that line before the next message', () => {
    // Prepare
    const { progress, written } = reporter({ isTTY: true });

    // Act
    progress.onLoadProgress(load({}));
    progress.onLoadProgress(load({ tps: 500 }));
    progress.line('Recommend');

    // Assert
    expect(written).toEqual([
      '\r\x1b[K[   0.0s] Benchmark each candidate › c1: step 2/? (concurrency 4) 412 req/s, p95 9.8 ms',
      '\r\x1b[K[   0.0s] Benchmark each candidate › c1: step 2/? (concurrency 4) 500 req/s, p95 9.8 ms',
      '\r\x1b[K[   0.0s] Recommend\n',
    ]);
  });

  it('says where a candidate’s server listens once it is in service', () => {
    // Prepare
    const { progress, written } = reporter();

    // Act
    progress.onRunnerEvent(
      exited('Check endpoint', {
        candidate: { id: 'c2' },
        deployment: { status: 'IN_SERVICE', endpointName: 'ep' },
      }),
    );

    // Assert
    expect(written).toEqual([
      '[   0.0s] Benchmark each candidate › c2: in service at http://127.0.0.1:5000 (pid 4242, 2 worker(s) × 1 thread(s))\n',
    ]);
  });

  it('reports a failed candidate with the reason the workflow recorded', () => {
    // Prepare
    const { progress, written } = reporter();
    const cause = JSON.stringify({
      errorType: 'EndpointFailedError',
      errorMessage: 'model server exited with code 1',
    });

    // Act
    progress.onRunnerEvent(
      entered('Record failed candidate', {
        candidate: { id: 'c3' },
        error: { Error: 'EndpointFailedError', Cause: cause },
      }),
    );

    // Assert
    expect(written).toEqual([
      '[   0.0s] Benchmark each candidate › c3: failed: EndpointFailedError: model server exited with code 1\n',
    ]);
  });

  it('skips the first tick of a window, before any response', () => {
    // Prepare
    const { progress, written } = reporter();

    // Act
    progress.onLoadProgress(load({ requests: 0, p95Ms: 0 }));

    // Assert
    expect(written).toEqual([]);
  });

  it('speaks for the candidate with its first load worker only', () => {
    // Prepare
    const { progress, written } = reporter();

    // Act
    progress.onLoadProgress(load({ workerIndex: 1 }));

    // Assert
    expect(written).toEqual([]);
  });

  it('names the round a candidate runs, and says measured only once the rounds are over', () => {
    // Prepare
    const { progress, written } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));
    written.length = 0;
    const aggregated = (outcome: JsonValue): RunnerEvent =>
      exited('Aggregate load test', { candidate: { id: 'c1' }, outcome });

    // Act
    progress.onRunnerEvent(
      aggregated({ status: 'NEXT_ROUND', nextRound: { index: 0, kind: 'knee', load: 6, startEpochMs: 0 } }),
    );
    progress.onLoadProgress(load({ stepIndex: 0, load: 6, phase: 'drain' }));
    progress.onRunnerEvent(aggregated({ status: 'MEASURED', sustainableTps: 412.4 }));

    // Assert
    expect(written).toEqual([
      '[   0.0s] Benchmark each candidate › c1: round 1, knee probe (concurrency 6) done: 412 req/s, p95 9.8 ms\n',
      '[   0.0s] Benchmark each candidate › c1: measured, 412 req/s sustained within the SLA\n',
    ]);
  });

  it('follows interleaved repeats: the endpoint kept, each round, each repeat and its end', () => {
    // Prepare
    const { progress, written } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));
    written.length = 0;
    const repeatState = { candidate: { id: 'c1' }, deployment: { loadRound: { index: 1 } } };

    // Act
    progress.onRunnerEvent(
      exited('Aggregate load test', {
        candidate: { id: 'c1' },
        outcome: { status: 'REPEATS_PENDING', sustainableTps: 400 },
      }),
    );
    progress.onRunnerEvent(
      entered('Repeat each candidate', { repeatRound: { count: 1 }, plan: { loadPlan: { repeats: 3 } } }),
    );
    progress.onRunnerEvent(entered('Run repeat load workers', repeatState));
    progress.onLoadProgress(load({ stepIndex: 0, load: 4, phase: 'drain' }));
    progress.onRunnerEvent(
      exited('Aggregate repeat', {
        candidate: { id: 'c1' },
        outcome: { status: 'MEASURED', sustainableTps: 406 },
      }),
    );
    progress.onRunnerEvent(entered('Delete repeated endpoint', repeatState));

    // Assert
    expect(written).toEqual([
      '[   0.0s] Benchmark each candidate › c1: measured, 400 req/s sustained within the SLA; endpoint kept for its repeats, interleaved with the other candidates\n',
      '[   0.0s] Repeat each candidate: round 1 of 2, each kept endpoint measured once more\n',
      '[   0.0s] Repeat each candidate › c1: round 2, repeat (concurrency 4) done: 412 req/s, p95 9.8 ms\n',
      '[   0.0s] Repeat each candidate › c1: repeats done, 406 req/s sustained within the SLA (the median)\n',
      '[   0.0s] Repeat each candidate › c1: deleting its endpoint\n',
    ]);
  });

  it('says why an interleaved repeat failed', () => {
    // Prepare
    const { progress, written } = reporter();

    // Act
    progress.onRunnerEvent(
      entered('Record failed repeat', {
        candidate: { id: 'c1' },
        repeatFailure: { repeatError: { Error: 'EndpointNotInService', Cause: 'Endpoint e was Updating' } },
      }),
    );

    // Assert
    expect(written).toEqual([
      '[   0.0s] Repeat each candidate › c1: repeat failed: EndpointNotInService: Endpoint e was Updating; the figures before it stand\n',
    ]);
  });

  it('follows the proof: its deployment, its one open step at the target and its verdict', () => {
    // Prepare: the plan's steps are closed-model; the proof's is an arrival rate.
    const { progress, written } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));
    const before = written.length;

    // Act
    progress.onRunnerEvent(
      entered('Deploy proof endpoint', {
        candidate: { id: 'c1-prove', instanceType: 'ml.c5.large', initialInstanceCount: 3 },
      }),
    );
    progress.onLoadProgress(
      load({ candidateId: 'c1-prove', stepIndex: 0, load: 60, tps: 59.8, p95Ms: 18.1 }),
    );
    progress.onRunnerEvent(
      exited('Record proof', {
        candidate: { id: 'c1-prove' },
        summary: {
          proof: { status: 'held', note: 'proven: 3 × ml.c5.large held p95 18.1 ms at 59.8 TPS (target 60)' },
        },
      }),
    );
    progress.onRunnerEvent(entered('Delete proof endpoint', { candidate: { id: 'c1-prove' } }));

    // Assert
    expect(written.slice(before)).toEqual([
      '[   0.0s] Prove the target › c1-prove: deploying 3 × ml.c5.large\n',
      '[   0.0s] Prove the target › c1-prove: proof step (60 req/s offered) 59.8 req/s, p95 18.1 ms\n',
      '[   0.0s] Prove the target › c1-prove: proven: 3 × ml.c5.large held p95 18.1 ms at 59.8 TPS (target 60)\n',
      '[   0.0s] Prove the target › c1-prove: deleting its endpoint\n',
    ]);
  });

  it('follows the ramp: its deployment at the minimum, the policy attached, its rising load, its verdict and its clean-up', () => {
    // Prepare
    const { progress, written } = reporter();
    progress.onRunnerEvent(exited('Validate and plan', PLAN));
    const before = written.length;
    const state = {
      candidate: { id: 'c1-ramp', instanceType: 'ml.c5.large', initialInstanceCount: 2 },
      plan: { loadPlan: { stepDurationSeconds: 600 } },
      summary: { rampRequest: { minInstances: 2, maxInstances: 9, fromTps: 140, toTps: 600 } },
    };

    // Act
    progress.onRunnerEvent(entered('Deploy ramp endpoint', state));
    progress.onRunnerEvent(entered('Run ramp load workers', { ...state, deployment: {} }));
    progress.onLoadProgress(
      load({ candidateId: 'c1-ramp', stepIndex: 0, load: 600, tps: 311.4, p95Ms: 12.3 }),
    );
    // A further segment of the ramp says nothing new.
    progress.onRunnerEvent(
      entered('Run ramp load workers', {
        ...state,
        deployment: { loadSegment: { index: 1, startEpochMs: 0 } },
      }),
    );
    progress.onRunnerEvent(
      exited('Record ramp', {
        candidate: { id: 'c1-ramp' },
        summary: { ramp: { status: 'held', note: 'held: the SLA held through the ramp' } },
      }),
    );
    progress.onRunnerEvent(entered('Deregister ramp scaling', { candidate: { id: 'c1-ramp' } }));

    // Assert
    expect(written.slice(before)).toEqual([
      "[   0.0s] Ramp test › c1-ramp: deploying 2 × ml.c5.large (the policy's minimum)\n",
      '[   0.0s] Ramp test › c1-ramp: scaling policy attached (2–9 instances); ramping 140 → 600 req/s over 600 s\n',
      '[   0.0s] Ramp test › c1-ramp: ramp (to 600 req/s) 311 req/s, p95 12.3 ms\n',
      '[   0.0s] Ramp test › c1-ramp: held: the SLA held through the ramp\n',
      '[   0.0s] Ramp test › c1-ramp: deregistering its scaling, then deleting its endpoint\n',
    ]);
  });
});
