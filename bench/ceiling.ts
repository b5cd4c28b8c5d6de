/**
 * Ceiling on loopback: requests/s and CPU per request of our engine (closed model, local HTTP
 * transport) against autocannon (judged) and wrk when installed (recorded), same trivial node:http server, same concurrency and duration,
 * each tool in its own child process and the server in a third. Each tool is timed from outside
 * over the same warm window: the server's count of responses and the client process's CPU time,
 * sampled by this process WARMUP_SECONDS after the tool says it started (support/window.ts), so
 * neither a tool's cold start nor its own way of counting enters the figures. The tools alternate
 * (and take turns going first), ROUNDS runs each; each round's two runs form a pair, and each figure
 * is the median of the paired ratios with their spread: pairing cancels the machine's slow drifts,
 * the median its bursts, and no run is picked as the best.
 */
import type { LoadTestResult } from '../core/load-test/index.js';
import { startChild } from './support/child-process.js';
import { type CeilingPair, type PairedFigure, ceilingFigures, ceilingPair } from './support/paired.js';
import { type BenchRow, median } from './support/report.js';
import { rotated } from './support/streaming.js';
import { type WindowFigures, sampleWindow, windowFigures } from './support/window.js';
import { type WrkSummary, startWrk, waitForTraffic, wrkInstalled } from './support/wrk.js';

const CONCURRENCY = 32;
/** Each tool runs WARMUP + WINDOW + TAIL s; the window is timed from outside after its warm-up. */
const WARMUP_SECONDS = 1;
const SECONDS = 5;
/** Room for the parent's last sample to land late (a busy machine) and still be inside the run. */
const TAIL_SECONDS = 2;
const ROUNDS = 7;
const GOAL_RATIO = 1.0;

interface AutocannonSummary {
  readonly non2xx: number;
  readonly errors: number;
  readonly loadEndedAtEpochMs: number;
}

interface EngineSummary {
  readonly result: LoadTestResult;
  readonly loadEndedAtEpochMs: number;
}

interface TimedRun<T> {
  readonly summary: T;
  readonly window: WindowFigures;
}

const spread = (figure: PairedFigure, digits: number): string =>
  `${figure.median.toFixed(digits)} (${figure.min.toFixed(digits)}–${figure.max.toFixed(digits)})`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one tool and times it from outside over the same window as every other: from WARMUP_SECONDS
 * after it says it started sending, for SECONDS, by the server's count of responses and the
 * client's CPU time (support/window.ts). Neither tool's own figure, nor its start-up, is measured.
 */
async function timeOverWindow<T extends { readonly loadEndedAtEpochMs: number }>(
  origin: string,
  script: string,
  args: readonly string[],
): Promise<TimedRun<T>> {
  const child = startChild(script, [...args, '--announce-start']);
  try {
    await child.nextMessage<{ started: true }>();
    const pid = child.process.pid;
    if (pid === undefined) throw new Error(`child ${script} has no process id`);
    await sleep(WARMUP_SECONDS * 1000);
    const start = await sampleWindow(origin, pid);
    await sleep(SECONDS * 1000);
    const end = await sampleWindow(origin, pid);
    const summary = await child.nextMessage<T>();
    return { summary, window: windowFigures(start, end, summary.loadEndedAtEpochMs) };
  } finally {
    await child.stop();
  }
}

/** wrk, when installed, timed over the same window: its start signal is its "Running" line. */
async function timeWrkOverWindow(origin: string): Promise<TimedRun<WrkSummary>> {
  const wrk = startWrk({
    url: `${origin}/invocations`,
    connections: CONCURRENCY,
    seconds: WARMUP_SECONDS + SECONDS + TAIL_SECONDS,
    body: REQUEST_BODY,
    contentType: 'application/json',
  });
  try {
    await waitForTraffic(origin, wrk.finished, 30_000);
    const pid = wrk.process.pid;
    if (pid === undefined) throw new Error('wrk has no process id');
    await sleep(WARMUP_SECONDS * 1000);
    const start = await sampleWindow(origin, pid);
    await sleep(SECONDS * 1000);
    const end = await sampleWindow(origin, pid);
    const summary = await wrk.finished;
    return { summary, window: windowFigures(start, end, summary.loadEndedAtEpochMs) };
  } finally {
    wrk.stop();
  }
}

const REQUEST_BODY = '{"inputs":[1,2,3]}';

export async function benchCeiling(): Promise<BenchRow> {
  const server = startChild('http-server.ts', []);
  try {
    const { port } = await server.nextMessage<{ port: number }>();
    const origin = `http://127.0.0.1:${port}`;
    // The engine's own warm-up and window only set how long it runs: it is timed from outside.
    const plan = {
      steps: [CONCURRENCY],
      warmupSeconds: WARMUP_SECONDS,
      stepDurationSeconds: SECONDS + TAIL_SECONDS,
    };
    const runAutocannon = (): Promise<TimedRun<AutocannonSummary>> =>
      timeOverWindow<AutocannonSummary>(origin, 'autocannon-client.ts', [
        '--url',
        `${origin}/invocations`,
        '--connections',
        String(CONCURRENCY),
        '--seconds',
        String(WARMUP_SECONDS + SECONDS + TAIL_SECONDS),
      ]);
    const runEngine = (): Promise<TimedRun<EngineSummary>> =>
      timeOverWindow<EngineSummary>(origin, 'engine-client.ts', [
        '--origin',
        origin,
        '--plan',
        JSON.stringify(plan),
        '--sla',
        JSON.stringify({ p99LatencyMs: 10_000 }),
      ]);
    const autocannonRuns: TimedRun<AutocannonSummary>[] = [];
    const engineRuns: TimedRun<EngineSummary>[] = [];
    const wrkRuns: TimedRun<WrkSummary>[] = [];
    const withWrk = wrkInstalled();
    const tools = withWrk ? (['autocannon', 'engine', 'wrk'] as const) : (['autocannon', 'engine'] as const);
    for (let round = 0; round < ROUNDS; round++) {
      // Whoever runs later finds the server (and the machine) warmer: each tool goes first in turn.
      for (const tool of rotated(tools, round)) {
        if (tool === 'autocannon') autocannonRuns.push(await runAutocannon());
        else if (tool === 'engine') engineRuns.push(await runEngine());
        else wrkRuns.push(await timeWrkOverWindow(origin));
      }
    }
    const pairs: CeilingPair[] = engineRuns.map((engine, round) =>
      ceilingPair(engine.window, autocannonRuns[round]?.window),
    );
    const figures = ceilingFigures(pairs, GOAL_RATIO);
    // Against wrk the figures are recorded, not judged: bench/RESULTS.md says where the engine's
    // CPU per request goes beyond a C client's.
    const wrkPairs: CeilingPair[] = engineRuns.map((engine, round) =>
      ceilingPair(engine.window, wrkRuns[round]?.window),
    );
    const wrkFigures = withWrk ? ceilingFigures(wrkPairs, GOAL_RATIO) : undefined;
    const wrkErrors = wrkRuns.reduce((sum, run) => sum + run.summary.errors, 0);
    const engineErrors = engineRuns.reduce(
      (sum, run) =>
        sum + (run.summary.result.steps[0]?.requests ?? 0) * (run.summary.result.steps[0]?.errorRate ?? 0),
      0,
    );
    const autocannonErrors = autocannonRuns.reduce(
      (sum, run) => sum + run.summary.non2xx + run.summary.errors,
      0,
    );
    const windowsInsideRuns = [...engineRuns, ...autocannonRuns, ...wrkRuns].every(
      (run) => run.window.insideRun,
    );
    const round3 = (value: number): number => Number(value.toFixed(3));
    return {
      name: 'loopback ceiling vs autocannon',
      goal: `>= ${GOAL_RATIO}x autocannon req/s, <= its CPU/request`,
      measured:
        `${spread(figures.tpsRatio, 2)}x req/s, CPU/request ${spread(figures.cpuRatio, 2)}x ` +
        `(median (min–max) of ${ROUNDS} pairs timed over the same ${SECONDS} s warm window; medians ${Math.round(median(pairs.map((pair) => pair.engineTps)))} vs ` +
        `${Math.round(median(pairs.map((pair) => pair.autocannonTps)))} req/s, ` +
        `${figures.engineCpuUsPerRequest.median.toFixed(1)} vs ${figures.autocannonCpuUsPerRequest.median.toFixed(1)} ` +
        `µs CPU/request, ${CONCURRENCY} in flight)` +
        (wrkFigures === undefined
          ? '; wrk not installed'
          : `; vs wrk (recorded) ${spread(wrkFigures.tpsRatio, 2)}x req/s, CPU/request ${spread(wrkFigures.cpuRatio, 2)}x ` +
            `(${figures.engineCpuUsPerRequest.median.toFixed(1)} vs ${wrkFigures.autocannonCpuUsPerRequest.median.toFixed(1)} µs)`) +
        (windowsInsideRuns ? '' : '; a window outlasted its run'),
      pass:
        figures.pass && engineErrors === 0 && autocannonErrors === 0 && wrkErrors === 0 && windowsInsideRuns,
      details: {
        concurrency: CONCURRENCY,
        warmupSeconds: WARMUP_SECONDS,
        seconds: SECONDS,
        tailSeconds: TAIL_SECONDS,
        rounds: ROUNDS,
        autocannonRequestsPerSecond: pairs.map((pair) => Math.round(pair.autocannonTps)),
        autocannonNon2xxAndErrors: autocannonRuns.map((run) => run.summary.non2xx + run.summary.errors),
        engineRequestsPerSecond: pairs.map((pair) => Math.round(pair.engineTps)),
        engineP99Ms: engineRuns.map((run) => run.summary.result.steps[0]?.latencyMs.p99 ?? 0),
        engineWindows: engineRuns.map((run) => run.window),
        autocannonWindows: autocannonRuns.map((run) => run.window),
        pairedRatios: pairs.map((pair) => round3(pair.engineTps / pair.autocannonTps)),
        engineCpuUsPerRequest: pairs.map((pair) => round3(pair.engineCpuUsPerRequest)),
        autocannonCpuUsPerRequest: pairs.map((pair) => round3(pair.autocannonCpuUsPerRequest)),
        pairedCpuRatios: pairs.map((pair) =>
          round3(pair.engineCpuUsPerRequest / pair.autocannonCpuUsPerRequest),
        ),
        figures,
        engineErrors,
        autocannonErrors,
        wrk:
          wrkFigures === undefined
            ? 'not installed'
            : {
                figures: wrkFigures,
                requestsPerSecond: wrkPairs.map((pair) => Math.round(pair.autocannonTps)),
                cpuUsPerRequest: wrkPairs.map((pair) => round3(pair.autocannonCpuUsPerRequest)),
                pairedCpuRatios: wrkPairs.map((pair) =>
                  round3(pair.engineCpuUsPerRequest / pair.autocannonCpuUsPerRequest),
                ),
                windows: wrkRuns.map((run) => run.window),
                errors: wrkErrors,
              },
      },
    };
  } finally {
    await server.stop();
  }
}
