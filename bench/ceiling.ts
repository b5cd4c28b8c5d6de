/**
 * Ceiling on loopback: requests/s and CPU per request of our engine (closed model, local HTTP
 * transport) against autocannon, same trivial node:http server, same concurrency and duration,
 * each tool in its own child process and the server in a third. The tools alternate (and take
 * turns going first), ROUNDS runs each; each round's two runs form a pair, and each figure is the
 * median of the paired ratios with their spread: pairing cancels the machine's slow drifts, the
 * median its bursts, and no run is picked as the best.
 */
import type { LoadTestResult } from '../handlers/load-test/results.js';
import { type ClientCost, cpuUsPerRequest } from './support/cpu.js';
import { runChild, startChild } from './support/child-process.js';
import { type CeilingPair, type PairedFigure, ceilingFigures } from './support/paired.js';
import { type BenchRow, median } from './support/report.js';

const CONCURRENCY = 32;
const SECONDS = 5;
const ROUNDS = 7;
const GOAL_RATIO = 1.0;

interface AutocannonSummary {
  readonly requestsPerSecond: number;
  readonly non2xx: number;
  readonly errors: number;
  readonly cost: ClientCost;
}

interface EngineSummary {
  readonly result: LoadTestResult;
  readonly cost: ClientCost;
}

const spread = (figure: PairedFigure, digits: number): string =>
  `${figure.median.toFixed(digits)} (${figure.min.toFixed(digits)}–${figure.max.toFixed(digits)})`;

export async function benchCeiling(): Promise<BenchRow> {
  const server = startChild('http-server.ts', []);
  try {
    const { port } = await server.nextMessage<{ port: number }>();
    const origin = `http://127.0.0.1:${port}`;
    const plan = { steps: [CONCURRENCY], warmupSeconds: 1, stepDurationSeconds: SECONDS };
    const runAutocannon = (): Promise<AutocannonSummary> =>
      runChild<AutocannonSummary>('autocannon-client.ts', [
        '--url',
        `${origin}/invocations`,
        '--connections',
        String(CONCURRENCY),
        '--seconds',
        String(SECONDS),
      ]);
    const runEngine = (): Promise<EngineSummary> =>
      runChild<EngineSummary>('engine-client.ts', [
        '--origin',
        origin,
        '--plan',
        JSON.stringify(plan),
        '--sla',
        JSON.stringify({ p99LatencyMs: 10_000 }),
      ]);
    const autocannonRuns: AutocannonSummary[] = [];
    const engineRuns: EngineSummary[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Whoever runs second finds the server (and the machine) warmer: take turns.
      if (round % 2 === 0) {
        autocannonRuns.push(await runAutocannon());
        engineRuns.push(await runEngine());
      } else {
        engineRuns.push(await runEngine());
        autocannonRuns.push(await runAutocannon());
      }
    }
    const pairs: CeilingPair[] = engineRuns.map((engine, round) => {
      const autocannon = autocannonRuns[round];
      return {
        engineTps: engine.result.steps[0]?.tps ?? 0,
        autocannonTps: autocannon?.requestsPerSecond ?? Number.NaN,
        engineCpuUsPerRequest: cpuUsPerRequest(engine.cost),
        autocannonCpuUsPerRequest: autocannon === undefined ? Number.NaN : cpuUsPerRequest(autocannon.cost),
      };
    });
    const figures = ceilingFigures(pairs, GOAL_RATIO);
    const engineErrors = engineRuns.reduce(
      (sum, run) => sum + (run.result.steps[0]?.requests ?? 0) * (run.result.steps[0]?.errorRate ?? 0),
      0,
    );
    const round3 = (value: number): number => Number(value.toFixed(3));
    return {
      name: 'loopback ceiling vs autocannon',
      goal: `>= ${GOAL_RATIO}x autocannon req/s, <= its CPU/request`,
      measured:
        `${spread(figures.tpsRatio, 2)}x req/s, CPU/request ${spread(figures.cpuRatio, 2)}x ` +
        `(median (min–max) of ${ROUNDS} pairs; medians ${Math.round(median(pairs.map((pair) => pair.engineTps)))} vs ` +
        `${Math.round(median(pairs.map((pair) => pair.autocannonTps)))} req/s, ` +
        `${figures.engineCpuUsPerRequest.median.toFixed(1)} vs ${figures.autocannonCpuUsPerRequest.median.toFixed(1)} ` +
        `µs CPU/request, ${CONCURRENCY} in flight)`,
      pass: figures.pass && engineErrors === 0,
      details: {
        concurrency: CONCURRENCY,
        seconds: SECONDS,
        rounds: ROUNDS,
        autocannonRequestsPerSecond: autocannonRuns.map((run) => Math.round(run.requestsPerSecond)),
        autocannonNon2xxAndErrors: autocannonRuns.map((run) => run.non2xx + run.errors),
        engineRequestsPerSecond: pairs.map((pair) => pair.engineTps),
        engineP99Ms: engineRuns.map((run) => run.result.steps[0]?.latencyMs.p99 ?? 0),
        pairedRatios: pairs.map((pair) => round3(pair.engineTps / pair.autocannonTps)),
        engineCpuUsPerRequest: pairs.map((pair) => round3(pair.engineCpuUsPerRequest)),
        autocannonCpuUsPerRequest: pairs.map((pair) => round3(pair.autocannonCpuUsPerRequest)),
        pairedCpuRatios: pairs.map((pair) =>
          round3(pair.engineCpuUsPerRequest / pair.autocannonCpuUsPerRequest),
        ),
        figures,
        engineErrors,
      },
    };
  } finally {
    await server.stop();
  }
}
