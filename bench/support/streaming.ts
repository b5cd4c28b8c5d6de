import { parseArgs } from 'node:util';
/**
 * What the streaming bench's server, clients and figures share, and its figures: the engine's CPU
 * per token against a peer's on the same server, their throughput ratio, and the accuracy of the
 * engine's TTFT and ITL against a server whose delays are known.
 */
import { type PairedFigure, pairedFigure } from './paired.js';
import type { StreamFormat } from '../../core/contracts/index.js';

/** One format per container family: TGI, LMI (its default JSON Lines formatter), OpenAI SSE. */
export type BenchStreamFormat = Extract<StreamFormat, 'tgi' | 'lmi-jsonlines' | 'openai'>;
export const BENCH_STREAM_FORMATS: readonly BenchStreamFormat[] = ['tgi', 'lmi-jsonlines', 'openai'];

/** `items` starting from index `by` (modulo its length), the ones before it moved to the end. */
export function rotated<T>(items: readonly T[], by: number): T[] {
  if (items.length === 0) return [];
  const start = ((by % items.length) + items.length) % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

/** One client's run of one format, as a child reports it. */
export interface StreamClientRun {
  readonly format: BenchStreamFormat;
  /** The child's CPU (user + system, µs) over the run, warm-up included. */
  readonly cpuUs: number;
  /** Responses read to their end over the run, warm-up included, and their tokens. */
  readonly responses: number;
  readonly tokens: number;
  /** Requests that did not end `ok` (any, warm-up included): a run with one is not a measurement. */
  readonly failures: number;
  /** Over the measurement window only. */
  readonly responsesPerSecond: number;
  readonly tokensPerSecond: number;
}

/** The engine's run adds what it measured of the tokens (the step's merged figures). */
export interface EngineStreamRun extends StreamClientRun {
  readonly ttftP50Ms: number;
  readonly itlP50Ms: number;
  /** The server's count per response, as the parser read it: the server's tokens, all of them. */
  readonly outputTokensPerRequest: number;
  readonly outputTokenSource: string;
}

/** The peer's run adds what it read: pieces (transport callbacks) and bytes per response. */
export interface PeerStreamRun extends StreamClientRun {
  readonly piecesPerResponse: number;
  readonly bytesPerResponse: number;
}

/** What the server really wrote with on a schedule, per format (`GET /written`). */
export type WrittenDelays = Readonly<
  Partial<
    Record<
      BenchStreamFormat,
      { readonly firstTokenMs: number; readonly interTokenMs: number; readonly tokens: number }
    >
  >
>;

/** Microseconds of client CPU per token of one run; NaN when it read no token. */
export function cpuUsPerToken(run: Pick<StreamClientRun, 'cpuUs' | 'tokens'>): number {
  return run.tokens > 0 ? run.cpuUs / run.tokens : Number.NaN;
}

/** One round of one format: the engine's run and the peer's, one after the other. */
export interface StreamPair {
  readonly engine: Pick<StreamClientRun, 'cpuUs' | 'tokens' | 'tokensPerSecond'>;
  readonly peer: Pick<StreamClientRun, 'cpuUs' | 'tokens' | 'tokensPerSecond'>;
}

export interface StreamFormatFigures {
  readonly engineCpuUsPerToken: PairedFigure;
  readonly peerCpuUsPerToken: PairedFigure;
  /** Engine − peer CPU per token within each pair: what parsing and timing a token costs. */
  readonly overheadCpuUsPerToken: PairedFigure;
  /** Engine ÷ peer tokens/s within each pair (= responses/s: both read the same responses). */
  readonly tokensPerSecondRatio: PairedFigure;
}

/**
 * One format's figures from its pairs: each difference and ratio is taken within a pair (the two
 * runs shared the machine's state), then the median over pairs, as for the ceiling.
 */
export function streamFormatFigures(pairs: readonly StreamPair[]): StreamFormatFigures {
  const engine = pairs.map((pair) => cpuUsPerToken(pair.engine));
  const peer = pairs.map((pair) => cpuUsPerToken(pair.peer));
  return {
    engineCpuUsPerToken: pairedFigure(engine),
    peerCpuUsPerToken: pairedFigure(peer),
    overheadCpuUsPerToken: pairedFigure(engine.map((value, index) => value - (peer[index] ?? Number.NaN))),
    tokensPerSecondRatio: pairedFigure(
      pairs.map((pair) => pair.engine.tokensPerSecond / pair.peer.tokensPerSecond),
    ),
  };
}

/** measured ÷ expected − 1: +0.05 is 5 % above the known value. */
export function relativeError(measured: number, expected: number): number {
  return measured / expected - 1;
}

/** Whether `measured` is within ± `tolerance` (a fraction) of `expected`; NaN is not. */
export function withinTolerance(measured: number, expected: number, tolerance: number): boolean {
  return Math.abs(relativeError(measured, expected)) <= tolerance;
}

/** The row's goals (bench/streaming.ts says why each). */
export interface StreamingGoals {
  /** Engine − peer CPU per token, µs: at most. */
  readonly maxOverheadUsPerToken: number;
  /** Engine ÷ peer tokens/s: at least. */
  readonly minTokensPerSecondRatio: number;
  /** TTFT and ITL p50 within ± this fraction of what the server wrote. */
  readonly accuracyTolerance: number;
}

/** The accuracy run of one format: the engine's p50s and the server's written delays' medians. */
export interface StreamAccuracy {
  readonly ttftP50Ms: number;
  readonly itlP50Ms: number;
  readonly writtenFirstTokenMs: number;
  readonly writtenInterTokenMs: number;
}

/** Whether one format meets every goal; a figure that was not measured (NaN) meets none. */
export function formatMeetsGoals(
  figures: StreamFormatFigures,
  accuracy: StreamAccuracy,
  goals: StreamingGoals,
): boolean {
  return (
    figures.overheadCpuUsPerToken.median <= goals.maxOverheadUsPerToken &&
    figures.tokensPerSecondRatio.median >= goals.minTokensPerSecondRatio &&
    withinTolerance(accuracy.ttftP50Ms, accuracy.writtenFirstTokenMs, goals.accuracyTolerance) &&
    withinTolerance(accuracy.itlP50Ms, accuracy.writtenInterTokenMs, goals.accuracyTolerance)
  );
}

/** The arguments bench/streaming.ts gives each client child (the engine's and the peer's). */
export function streamClientArguments() {
  return parseArgs({
    options: {
      origin: { type: 'string' },
      formats: { type: 'string' },
      tokens: { type: 'string' },
      concurrency: { type: 'string' },
      'warmup-seconds': { type: 'string' },
      seconds: { type: 'string' },
      'path-suffix': { type: 'string' },
      'prime-seconds': { type: 'string' },
    },
  }).values;
}

/** What a peer client counted over one format's run, before it is turned into per-second figures. */
export interface PeerStreamCounts {
  readonly format: BenchStreamFormat;
  readonly cpuUs: number;
  readonly responses: number;
  readonly failures: number;
  /** Responses that ended inside the measured window. */
  readonly inWindow: number;
  readonly windowMs: number;
  readonly tokensPerResponse: number;
  readonly pieces: number;
  readonly bytes: number;
}

/** A peer client's run as the bench compares it: tokens, rates over the window, reads per response. */
export function peerStreamRun(counts: PeerStreamCounts): PeerStreamRun {
  const { responses, inWindow, windowMs, tokensPerResponse } = counts;
  return {
    format: counts.format,
    cpuUs: counts.cpuUs,
    responses,
    tokens: responses * tokensPerResponse,
    failures: counts.failures,
    responsesPerSecond: inWindow / (windowMs / 1000),
    tokensPerSecond: (inWindow * tokensPerResponse) / (windowMs / 1000),
    piecesPerResponse: responses > 0 ? counts.pieces / responses : 0,
    bytesPerResponse: responses > 0 ? counts.bytes / responses : 0,
  };
}

/**
 * Runs a peer client's formats as the engine's client does (each primed first when asked, so every
 * format's code is compiled before any is measured), then prints `{ runs }` as one JSON line.
 */
export async function runPeerFormats(
  values: ReturnType<typeof streamClientArguments>,
  runFormat: (format: BenchStreamFormat, warmupMs: number, windowMs: number) => Promise<PeerStreamRun>,
): Promise<void> {
  const formats = (values.formats ?? '').split(',') as BenchStreamFormat[];
  const primeSeconds = Number(values['prime-seconds'] ?? 0);
  if (primeSeconds > 0) {
    for (const format of formats) await runFormat(format, 0, primeSeconds * 1000);
  }
  const warmupMs = Number(values['warmup-seconds']) * 1000;
  const windowMs = Number(values.seconds) * 1000;
  const runs: PeerStreamRun[] = [];
  for (const format of formats) runs.push(await runFormat(format, warmupMs, windowMs));
  console.log(JSON.stringify({ runs }));
}
