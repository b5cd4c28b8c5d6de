/**
 * The streaming bench's peer, in its own process: the same local streaming transport, connections
 * and closed loop (`--concurrency` requests in flight, each sent again as soon as the last one's
 * body ended) as the engine's run, but reading each response as raw bytes: no parser, no clock
 * read per piece, no histogram, no step driver. What the engine spends beyond this per token is
 * its own parsing and timing. Every format first runs `--prime-seconds` unmeasured; then, for each
 * format in turn, `--warmup-seconds` and a window of `--seconds` whose completed responses give the
 * throughput. Prints one JSON line, `{ runs }`: a `PeerStreamRun` per format, its CPU over the
 * format's whole measured run (warm-up included) with every response read in that time.
 */
import { createHttpStreamTransport } from '../../local/adapters/index.js';
import { cpuUsSince } from '../support/cpu.js';
import {
  type BenchStreamFormat,
  type PeerStreamRun,
  peerStreamRun,
  runPeerFormats,
  streamClientArguments,
} from '../support/streaming.js';

const values = streamClientArguments();
const tokensPerResponse = Number(values.tokens);
const concurrency = Number(values.concurrency);
const request = {
  body: new TextEncoder().encode('{"inputs":"bench","parameters":{"max_new_tokens":64}}'),
  contentType: 'application/json',
};

async function runFormat(
  format: BenchStreamFormat,
  warmupMs: number,
  windowMs: number,
): Promise<PeerStreamRun> {
  const transport = createHttpStreamTransport({
    origin: values.origin ?? '',
    connections: concurrency,
    // The engine's plan default (`requestTimeoutMs` in core/load-test/plan.ts): the same transport.
    requestTimeoutMs: 65_000,
    path: `/${format}${values['path-suffix'] ?? ''}`,
  });
  const signal = new AbortController().signal;
  let responses = 0;
  let failures = 0;
  let inWindow = 0;
  let pieces = 0;
  let bytes = 0;
  const onPart = (part: Uint8Array): void => {
    pieces++;
    bytes += part.byteLength;
  };
  const cpuStart = process.cpuUsage();
  const startMs = performance.now();
  const windowStartMs = startMs + warmupMs;
  const endMs = windowStartMs + windowMs;
  const user = async (): Promise<void> => {
    while (performance.now() < endMs) {
      const outcome = await transport.invokeStream(request, signal, onPart);
      if (outcome.kind !== 'ok') {
        failures++;
        continue;
      }
      responses++;
      const now = performance.now();
      if (now >= windowStartMs && now < endMs) inWindow++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, user));
  const cpuUs = cpuUsSince(cpuStart);
  await transport.close();
  return peerStreamRun({
    format,
    cpuUs,
    responses,
    failures,
    inWindow,
    windowMs,
    tokensPerResponse,
    pieces,
    bytes,
  });
}

await runPeerFormats(values, runFormat);
