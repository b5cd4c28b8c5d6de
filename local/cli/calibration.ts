/**
 * An SLA stated relative to this machine, for local runs only.
 *
 * A local run measures this machine standing in for the instance types, so a fixed latency SLA
 * that a quiet laptop meets with room to spare is missed by every candidate on one where a build
 * takes the cores, and the run ends with no recommendation for the machine's sake. A local input
 * may therefore carry `localCalibration: { slaTimesReferenceP95 }`: before the run, the CLI times
 * the model's reference inference here (uncompiled, one ONNX Runtime thread, one request at a
 * time, as the slowest candidate serves one request) and raises the SLA's latency limits to that
 * many times its p95 when that is higher. It never lowers them, so a quiet machine runs the input
 * as written. The terminal says what was measured and what the SLA became; the AWS workflow never
 * sees the field (the CLI removes it), so an AWS run is judged against the SLA as written.
 */
import { type InputIssue, isRecord, describeGiven } from '../../core/contracts/index.js';
import type { ReferenceTimingReply, ReferenceTimingRequest } from '../model-server/index.js';
import { spawnWorkerModule } from '../model-server/index.js';

export const LOCAL_CALIBRATION_FIELD = 'localCalibration';
/** A factor below 1 would tighten the SLA; above 100 it would accept anything. */
const MIN_FACTOR = 1;
const MAX_FACTOR = 100;
/** Enough inferences for a p95 (at least 20 beyond it), few enough to take a second or two. */
const WARM_UP_INFERENCES = 5;
const MIN_TIMED_INFERENCES = 60;
const MAX_TIMED_INFERENCES = 400;
const TIMED_WINDOW_MS = 1500;

/** The block's JSON Schema, for the local input schema editors check files against. */
export const LOCAL_CALIBRATION_JSON_SCHEMA = {
  type: 'object',
  description:
    "Local runs only: raise the SLA's latency limits to this machine, never lower them. The CLI times the model's reference inference here before the run.",
  properties: {
    slaTimesReferenceP95: {
      type: 'number',
      minimum: MIN_FACTOR,
      maximum: MAX_FACTOR,
      description: "The SLA's latency limits become at least this many times the reference inference's p95.",
    },
  },
  required: ['slaTimesReferenceP95'],
  additionalProperties: false,
} as const;

export interface LocalCalibration {
  readonly slaTimesReferenceP95: number;
}

/** A run input without its local calibration, and the calibration it asked for. */
export interface CalibratedInput {
  readonly input: unknown;
  readonly calibration: LocalCalibration | undefined;
  readonly issues: readonly InputIssue[];
}

/**
 * Takes `localCalibration` out of a run input and checks it, naming the field: what it needs is
 * an ONNX model file with its input shape, and a latency SLA to scale.
 */
export function takeLocalCalibration(document: unknown): CalibratedInput {
  if (!isRecord(document) || !(LOCAL_CALIBRATION_FIELD in document)) {
    return { input: document, calibration: undefined, issues: [] };
  }
  const { [LOCAL_CALIBRATION_FIELD]: block, ...input } = document;
  const issues: InputIssue[] = [];
  const factor = isRecord(block) ? block.slaTimesReferenceP95 : undefined;
  if (!isRecord(block) || Object.keys(block).some((key) => key !== 'slaTimesReferenceP95')) {
    issues.push({
      field: LOCAL_CALIBRATION_FIELD,
      given: describeGiven(block),
      expected: `{ "slaTimesReferenceP95": <number from ${MIN_FACTOR} to ${MAX_FACTOR}> }`,
    });
  } else if (typeof factor !== 'number' || !(factor >= MIN_FACTOR && factor <= MAX_FACTOR)) {
    issues.push({
      field: `${LOCAL_CALIBRATION_FIELD}.slaTimesReferenceP95`,
      given: describeGiven(factor),
      expected: `a number from ${MIN_FACTOR} to ${MAX_FACTOR}: the SLA's latency limits become at least that many times this machine's reference p95`,
    });
  }
  const model = isRecord(input.model) ? input.model : {};
  if (
    model.framework !== 'onnx' ||
    typeof model.artifactUri !== 'string' ||
    !model.artifactUri.endsWith('.onnx')
  ) {
    issues.push({
      field: LOCAL_CALIBRATION_FIELD,
      given: `model.framework ${describeGiven(model.framework)}, model.artifactUri ${describeGiven(model.artifactUri)}`,
      expected:
        'an ONNX model file (framework "onnx", an artifactUri ending in .onnx) to time as the reference',
    });
  } else if (!isRecord(model.inputShape) || Object.keys(model.inputShape).length === 0) {
    issues.push({
      field: 'model.inputShape',
      given: describeGiven(model.inputShape),
      expected: `each input's name and shape, which ${LOCAL_CALIBRATION_FIELD} feeds the reference inference`,
    });
  }
  const sla = isRecord(input.sla) ? input.sla : {};
  if (typeof sla.p95LatencyMs !== 'number' && typeof sla.p99LatencyMs !== 'number') {
    issues.push({
      field: LOCAL_CALIBRATION_FIELD,
      given: `sla ${describeGiven(input.sla)}`,
      expected: 'an SLA with p95LatencyMs or p99LatencyMs to scale',
    });
  }
  return issues.length > 0 || typeof factor !== 'number'
    ? { input, calibration: undefined, issues }
    : { input, calibration: { slaTimesReferenceP95: factor }, issues };
}

export interface ReferenceTiming {
  readonly p95Ms: number;
  readonly inferences: number;
}

/** The value at `quantile` of sorted values, by the nearest rank. */
function nearestRank(sorted: readonly number[], quantile: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1));
  return sorted[index] ?? 0;
}

/**
 * Times the model's reference inference on this machine, in a worker thread
 * (local/model-server/reference-timing-worker.ts): the model as written, one intra-op thread, one
 * inference at a time, for about a second and a half.
 */
export async function timeReferenceInference(
  model: Uint8Array,
  inputShape: Readonly<Record<string, readonly number[]>>,
): Promise<ReferenceTiming> {
  const request: ReferenceTimingRequest = {
    model,
    inputShape,
    warmUpInferences: WARM_UP_INFERENCES,
    minInferences: MIN_TIMED_INFERENCES,
    maxInferences: MAX_TIMED_INFERENCES,
    windowMs: TIMED_WINDOW_MS,
  };
  const worker = spawnWorkerModule('./reference-timing-worker', request);
  try {
    const reply = await new Promise<ReferenceTimingReply>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => {
        reject(new Error(`The reference timing worker exited with code ${code} before answering`));
      });
    });
    if (reply.type === 'failed') {
      throw new Error(`Could not time the model's reference inference: ${reply.reason}`);
    }
    const timings = [...reply.timingsMs].sort((a, b) => a - b);
    return { p95Ms: nearestRank(timings, 0.95), inferences: timings.length };
  } finally {
    await worker.terminate();
  }
}

export interface CalibratedSla {
  /** The run input with its SLA raised where the machine needs it. */
  readonly input: unknown;
  /** The line the terminal prints. */
  readonly description: string;
}

/** Rounds a limit up to a tenth of a millisecond, so the message and the SLA agree. */
function roundUp(ms: number): number {
  return Math.ceil(ms * 10) / 10;
}

/**
 * Raises the SLA's latency limits to `slaTimesReferenceP95` × the reference p95 when that is
 * higher; a p99 limit keeps its ratio to the p95 one. Pure, for the tests.
 */
export function calibrateSla(
  input: unknown,
  calibration: LocalCalibration,
  reference: ReferenceTiming,
): CalibratedSla {
  const record = isRecord(input) ? input : {};
  const sla = isRecord(record.sla) ? record.sla : {};
  const floor = roundUp(calibration.slaTimesReferenceP95 * reference.p95Ms);
  const p95 = typeof sla.p95LatencyMs === 'number' ? sla.p95LatencyMs : undefined;
  const p99 = typeof sla.p99LatencyMs === 'number' ? sla.p99LatencyMs : undefined;
  // The limit the floor applies to: the p95 one, else the p99 one.
  const limit = p95 ?? p99 ?? floor;
  // Only a positive limit is scaled: the input was validated before, so this is a guard.
  const scale = limit > 0 && floor > limit ? floor / limit : 1;
  const measured = `reference inference p95 ${reference.p95Ms.toFixed(2)} ms on this machine (${reference.inferences} timed, one thread, uncompiled)`;
  if (scale === 1) {
    return {
      input,
      description: `SLA kept as written: ${calibration.slaTimesReferenceP95} × the ${measured} is ${floor} ms, within it`,
    };
  }
  const raised = {
    ...sla,
    ...(p95 === undefined ? {} : { p95LatencyMs: roundUp(p95 * scale) }),
    ...(p99 === undefined ? {} : { p99LatencyMs: roundUp(p99 * scale) }),
  };
  const changes = [
    p95 === undefined ? undefined : `p95 ≤ ${p95} → ${raised.p95LatencyMs} ms`,
    p99 === undefined ? undefined : `p99 ≤ ${p99} → ${raised.p99LatencyMs} ms`,
  ].filter((change) => change !== undefined);
  return {
    input: { ...record, sla: raised },
    description:
      `SLA raised for this machine (${changes.join(', ')}): ${calibration.slaTimesReferenceP95} × the ${measured}, ` +
      `as ${LOCAL_CALIBRATION_FIELD} asks; a quiet machine keeps the SLA as written`,
  };
}
