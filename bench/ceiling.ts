/**
 * Ceiling on loopback: requests/s of our engine (closed model, local HTTP transport) against
 * autocannon, same trivial node:http server, same concurrency and duration, each tool in its own
 * child process and the server in a third. The tools alternate, five runs each; each round's two
 * runs form a pair, and the figure is the median of the paired ratios with their spread: pairing
 * cancels the machine's slow drifts, the median its bursts, and no run is picked as the best.
 */
import type { LoadTestResult } from '../handlers/load-test/results.js';
import { runChild, startChild } from './support/child-process.js';
import { type BenchRow, median } from './support/report.js';

const CONCURRENCY = 32;
const SECONDS = 5;
const ROUNDS = 5;
const GOAL_RATIO = 0.8;

interface AutocannonSummary {
  readonly requestsPerSecond: number;
  readonly non2xx: number;
  readonly errors: number;
}

export async function benchCeiling(): Promise<BenchRow> {
  const server = startChild('http-server.ts', []);
  try {
    const { port } = await server.nextMessage<{ port: number }>();
    const origin = `http://127.0.0.1:${port}`;
    const autocannonRuns: AutocannonSummary[] = [];
    const engineRuns: LoadTestResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      autocannonRuns.push(
        await runChild<AutocannonSummary>('autocannon-client.ts', [
          '--url',
          `${origin}/invocations`,
          '--connections',
          String(CONCURRENCY),
          '--seconds',
          String(SECONDS),
        ]),
      );
      const plan = { steps: [CONCURRENCY], warmupSeconds: 1, stepDurationSeconds: SECONDS };
      const { result } = await runChild<{ result: LoadTestResult }>('engine-client.ts', [
        '--origin',
        origin,
        '--plan',
        JSON.stringify(plan),
        '--sla',
        JSON.stringify({ p99LatencyMs: 10_000 }),
      ]);
      engineRuns.push(result);
    }
    const autocannonTps = autocannonRuns.map((run) => run.requestsPerSecond);
    const engineTps = engineRuns.map((run) => run.steps[0]?.tps ?? 0);
    const pairedRatios = engineTps.map((tps, round) => tps / (autocannonTps[round] ?? Number.NaN));
    const ratio = median(pairedRatios);
    const engineErrors = engineRuns.reduce(
      (sum, run) => sum + (run.steps[0]?.requests ?? 0) * (run.steps[0]?.errorRate ?? 0),
      0,
    );
    return {
      name: 'loopback ceiling vs autocannon',
      goal: `>= ${GOAL_RATIO}x autocannon`,
      measured:
        `${ratio.toFixed(2)}x, median of ${ROUNDS} paired runs (spread ${Math.min(...pairedRatios).toFixed(2)}–` +
        `${Math.max(...pairedRatios).toFixed(2)}x; medians ${Math.round(median(engineTps))} vs ` +
        `${Math.round(median(autocannonTps))} req/s, ${CONCURRENCY} in flight)`,
      pass: ratio >= GOAL_RATIO && engineErrors === 0,
      details: {
        concurrency: CONCURRENCY,
        seconds: SECONDS,
        autocannonRequestsPerSecond: autocannonRuns.map((run) => Math.round(run.requestsPerSecond)),
        autocannonNon2xxAndErrors: autocannonRuns.map((run) => run.non2xx + run.errors),
        engineRequestsPerSecond: engineRuns.map((run) => run.steps[0]?.tps ?? 0),
        engineP99Ms: engineRuns.map((run) => run.steps[0]?.latencyMs.p99 ?? 0),
        pairedRatios: pairedRatios.map((value) => Number(value.toFixed(3))),
        engineErrors,
      },
    };
  } finally {
    await server.stop();
  }
}
