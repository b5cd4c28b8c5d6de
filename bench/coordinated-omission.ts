/**
 * Coordinated omission: an open-model step at a constant rate against the trivial server, which
 * stalls once for 1 s in the middle of the measurement window (every request arriving during the
 * stall is answered when it ends), timed from the engine's first request: no fixed start-up wait
 * that a busy machine could outlast. Each request's latency counts from its scheduled start, so the
 * requests the stall held show latencies from ~1 s down to ~0; their share sets the p99. The
 * expected p99 is computed by replaying the same schedule against the same stall; the measured one
 * must be within ±10 % of it. For contrast, a closed loop (1 in flight) against the same stall
 * reports what closed-loop tools report: one slow request, a p99 that does not see the stall.
 */
import type { LoadTestResult, WorkerResult } from '../core/load-test/index.js';
import { exactPercentile } from './support/latency-samples.js';
import { runChild, startChild } from './support/child-process.js';
import type { BenchRow } from './support/report.js';
import { expectedLatenciesMs, stallInsideWindow } from './support/stall.js';

const RATE = 200;
const WARMUP_SECONDS = 1;
const WINDOW_SECONDS = 8;
const STALL_INTO_WINDOW_MS = 3_000;
const STALL_MS = 1_000;
const TOLERANCE = 0.1;

interface EngineOutput {
  readonly worker: WorkerResult;
  readonly result: LoadTestResult;
}

async function runAgainstStall(
  model: 'open' | 'closed',
): Promise<{ output: EngineOutput; stallFrom: number }> {
  // The server arms the stall on the engine's first request (its start-up handshake), so the stall
  // lands STALL_INTO_WINDOW_MS into the window however long the engine's child took to start.
  const server = startChild('http-server.ts', [
    '--stall-after-first-ms',
    String(WARMUP_SECONDS * 1000 + STALL_INTO_WINDOW_MS),
    '--stall-for-ms',
    String(STALL_MS),
  ]);
  try {
    const { port } = await server.nextMessage<{ port: number }>();
    const plan = {
      model,
      steps: [model === 'open' ? RATE : 1],
      warmupSeconds: WARMUP_SECONDS,
      stepDurationSeconds: WINDOW_SECONDS,
      maxInFlight: 2 * RATE,
    };
    const output = await runChild<EngineOutput>('engine-client.ts', [
      '--origin',
      `http://127.0.0.1:${port}`,
      '--plan',
      JSON.stringify(plan),
      '--sla',
      JSON.stringify({ p99LatencyMs: 60_000 }),
    ]);
    const { stallFromEpochMs } = await server.nextMessage<{ stallFromEpochMs: number }>();
    return { output, stallFrom: stallFromEpochMs };
  } finally {
    await server.stop();
  }
}

export async function benchCoordinatedOmission(): Promise<BenchRow> {
  const open = await runAgainstStall('open');
  const step = open.output.result.steps[0];
  const workerStep = open.output.worker.steps[0];
  if (step === undefined || workerStep === undefined) throw new Error('the open-model run measured no step');
  const schedule = {
    ratePerSecond: RATE,
    windowStartEpochMs: workerStep.windowStartEpochMs,
    windowSeconds: WINDOW_SECONDS,
    stallFromEpochMs: open.stallFrom,
    stallMs: STALL_MS,
  };
  const expected = expectedLatenciesMs(schedule, step.latencyMs.p50);
  const stallInside = stallInsideWindow(schedule);
  const expectedP99 = exactPercentile(expected, 99);
  const ratio = step.latencyMs.p99 / expectedP99;
  const closed = await runAgainstStall('closed');
  const closedStep = closed.output.result.steps[0];
  return {
    name: 'coordinated omission (1 s stall)',
    goal: `p99 within ±${TOLERANCE * 100}% of exact`,
    measured: `p99 ${step.latencyMs.p99.toFixed(1)} ms vs exact ${expectedP99.toFixed(1)} ms (${ratio.toFixed(3)}x); closed loop sees ${closedStep?.latencyMs.p99.toFixed(1) ?? '?'} ms${stallInside ? '' : '; the stall fell outside the window'}`,
    pass: Math.abs(ratio - 1) <= TOLERANCE && step.dropped === 0 && step.errorRate === 0 && stallInside,
    details: {
      ratePerSecond: RATE,
      windowSeconds: WINDOW_SECONDS,
      stallMs: STALL_MS,
      stallIntoWindowMs: open.stallFrom - workerStep.windowStartEpochMs,
      measured: step.latencyMs,
      expected: {
        p50: exactPercentile(expected, 50),
        p90: exactPercentile(expected, 90),
        p95: exactPercentile(expected, 95),
        p99: expectedP99,
        max: expected[expected.length - 1],
      },
      requests: step.requests,
      late: step.late,
      dropped: step.dropped,
      closedLoopSameStall: { latencyMs: closedStep?.latencyMs, requests: closedStep?.requests },
    },
  };
}
