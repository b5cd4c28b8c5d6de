/**
 * The streaming bench's engine client, in its own process: every format first runs for
 * `--prime-seconds` unmeasured, in the order given; then, for each format in turn, `runLoadTest` in streaming mode
 * (closed model: the step driver, the local streaming transport, a parser per request and the
 * TTFT/ITL recorder) against the stream server's `/{format}{--path-suffix}`. Prints one JSON line,
 * `{ runs }`: an `EngineStreamRun` per format, its CPU taken over the format's whole measured run
 * (warm-up included) with every response it read in that time.
 */
import { aggregateWorkerResults, connectionsPerWorker, runLoadTest } from '../../core/load-test/index.js';
import type { StreamInvokeTransport } from '../../core/load-test/index.js';
import { createHttpStreamTransport } from '../../local/adapters/index.js';
import { cpuUsSince } from '../support/cpu.js';
import { type BenchStreamFormat, type EngineStreamRun, streamClientArguments } from '../support/streaming.js';
import { parseLoadPlan, parseSla } from '../../core/contracts/index.js';

const values = streamClientArguments();
const tokensPerResponse = Number(values.tokens);
const sla = parseSla({ p99LatencyMs: 60_000 });
const body = new TextEncoder().encode('{"inputs":"bench","parameters":{"max_new_tokens":64}}');

interface Timing {
  readonly warmupSeconds: number;
  readonly seconds: number;
  /** After `/{format}`: the measured runs' `--path-suffix`; priming's none (see below). */
  readonly pathSuffix: string;
}

async function runFormat(format: BenchStreamFormat, timing: Timing): Promise<EngineStreamRun> {
  const plan = parseLoadPlan({
    steps: [Number(values.concurrency)],
    warmupSeconds: timing.warmupSeconds,
    stepDurationSeconds: timing.seconds,
    response: { mode: 'stream', format },
  });
  const transport = createHttpStreamTransport({
    origin: values.origin ?? '',
    connections: connectionsPerWorker(plan),
    requestTimeoutMs: plan.requestTimeoutMs,
    path: `/${format}${timing.pathSuffix}`,
  });
  // The step's result counts the window's requests; CPU is taken over the whole run, so every
  // response read (warm-up included) is counted here. The run waits for each one to settle.
  let responses = 0;
  let failures = 0;
  const counted: StreamInvokeTransport = {
    invokeStream: async (request, signal, onPart) => {
      const outcome = await transport.invokeStream(request, signal, onPart);
      if (outcome.kind === 'ok') responses++;
      else failures++;
      return outcome;
    },
  };
  const cpuStart = process.cpuUsage();
  const worker = await runLoadTest({
    plan,
    sla,
    streamTransport: counted,
    request: { body, contentType: 'application/json' },
  });
  const cpuUs = cpuUsSince(cpuStart);
  await transport.close();
  const step = aggregateWorkerResults([worker], sla, plan).steps[0];
  return {
    format,
    cpuUs,
    responses,
    tokens: responses * tokensPerResponse,
    // A stream the parser found malformed or truncated is an error of the step (of its window), not
    // of the transport: either count fails the bench, so a request counted by both does no harm.
    failures: failures + (step === undefined ? 1 : Math.round(step.errorRate * step.requests)),
    responsesPerSecond: step?.tps ?? 0,
    tokensPerSecond: step?.stream?.outputTokensPerSecond ?? 0,
    ttftP50Ms: step?.stream?.ttftMs.p50 ?? Number.NaN,
    itlP50Ms: step?.stream?.itlMs.p50 ?? Number.NaN,
    outputTokensPerRequest: step?.stream?.outputTokensPerRequest ?? 0,
    outputTokenSource: step?.stream?.outputTokenSource ?? 'none',
  };
}

const formats = (values.formats ?? '').split(',') as BenchStreamFormat[];
// Every format's code compiled and optimized before any is measured: otherwise the first format
// measured pays for the JIT (several µs a token, tens of ms of TTFT on a loaded machine), and the
// others do not. Priming reads the server's unscheduled streams: the same parser, transport and
// recorder, the most requests in its time, and nothing added to what the server reports it wrote
// on a schedule (`GET /written`), which the measured runs are judged against.
const primeSeconds = Number(values['prime-seconds'] ?? 0);
if (primeSeconds > 0) {
  for (const format of formats)
    await runFormat(format, { warmupSeconds: 0, seconds: primeSeconds, pathSuffix: '' });
}
const measured = {
  warmupSeconds: Number(values['warmup-seconds']),
  seconds: Number(values.seconds),
  pathSuffix: values['path-suffix'] ?? '',
};
const runs: EngineStreamRun[] = [];
for (const format of formats) runs.push(await runFormat(format, measured));
console.log(JSON.stringify({ runs }));
