/**
 * The streaming bench's plain reader, in its own process: what a client written with nothing but
 * `node:http` does to read the same streams. A keep-alive `http.Agent` with `--concurrency`
 * sockets, the same closed loop as the engine's run (each request sent again as soon as the last
 * one's body ended), each response read through its `data` events by adding up the bytes: no
 * parser, no clock read per piece, no histogram. The reference the engine's streaming reader is
 * judged against (bench/streaming.ts). Every format first runs `--prime-seconds` unmeasured; then,
 * for each format in turn, `--warmup-seconds` and a window of `--seconds` whose completed responses
 * give the throughput. Prints one JSON line, `{ runs }`: a `PeerStreamRun` per format, its CPU over
 * the format's whole measured run (warm-up included) with every response read in that time.
 */
import { Agent, request as httpRequest } from 'node:http';
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
const origin = new URL(values.origin ?? '');
const body = Buffer.from('{"inputs":"bench","parameters":{"max_new_tokens":64}}');

interface Read {
  readonly ok: boolean;
  readonly pieces: number;
  readonly bytes: number;
}

function readOne(agent: Agent, path: string): Promise<Read> {
  return new Promise((resolve) => {
    let pieces = 0;
    let bytes = 0;
    const sent = httpRequest(
      {
        agent,
        host: origin.hostname,
        port: origin.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', 'content-length': body.byteLength },
      },
      (response) => {
        response.on('data', (piece: Buffer) => {
          pieces++;
          bytes += piece.byteLength;
        });
        response.on('end', () => {
          resolve({ ok: response.statusCode === 200, pieces, bytes });
        });
        response.on('error', () => {
          resolve({ ok: false, pieces, bytes });
        });
      },
    );
    sent.on('error', () => {
      resolve({ ok: false, pieces, bytes });
    });
    sent.end(body);
  });
}

async function runFormat(
  format: BenchStreamFormat,
  warmupMs: number,
  windowMs: number,
): Promise<PeerStreamRun> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const path = `/${format}${values['path-suffix'] ?? ''}`;
  let responses = 0;
  let failures = 0;
  let inWindow = 0;
  let pieces = 0;
  let bytes = 0;
  const cpuStart = process.cpuUsage();
  const startMs = performance.now();
  const windowStartMs = startMs + warmupMs;
  const endMs = windowStartMs + windowMs;
  const user = async (): Promise<void> => {
    while (performance.now() < endMs) {
      const read = await readOne(agent, path);
      pieces += read.pieces;
      bytes += read.bytes;
      if (!read.ok) {
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
  agent.destroy();
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
