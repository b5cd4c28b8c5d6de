import { findInstance } from '../catalog/index.js';
import type { InputIssue } from '../contracts/index.js';
import { BYTES_PER_DTYPE } from '../contracts/index.js';

/**
 * Whether a model fits the memory of a candidate instance, decided before anything is created: the
 * weights (and, for an LLM, the KV cache its settings imply) must fit the accelerator memory of the
 * devices the model is sharded over, or the host memory of an instance without an accelerator.
 * A type whose memory the instance table does not know is planned with a warning: the check cannot
 * run (core/catalog/sources/instance-facts.json names what is known).
 */

const GIB = 1024 ** 3;

/** Bytes per parameter of the data types models are loaded in (the run input's `model.size.dtype`). */
export { BYTES_PER_DTYPE };

export interface ModelMemory {
  readonly bytes: number;
  /** How the size was found, for the refusal: "70000000000 parameters × 2 bytes (fp16)". */
  readonly basis: string;
}

/** The weights of a model of `parameters` parameters in `dtype`. */
export function weightsMemory(parameters: number, dtype: string): ModelMemory | undefined {
  const bytes = (BYTES_PER_DTYPE as Readonly<Record<string, number>>)[dtype];
  if (bytes === undefined) return undefined;
  return { bytes: parameters * bytes, basis: `${parameters} parameters × ${bytes} bytes (${dtype})` };
}

export interface KvCacheShape {
  readonly layers: number;
  /** Key/value heads (fewer than the attention heads with grouped-query attention). */
  readonly kvHeads: number;
  readonly headDim: number;
  /** Tokens held per sequence (prompt + generated). */
  readonly maxTokens: number;
  /** Sequences held at once (the container's batch size). */
  readonly batch: number;
  readonly bytesPerValue: number;
}

/** Keys and values of every layer for every token held: 2 × layers × kvHeads × headDim × tokens × batch. */
export function kvCacheMemory(shape: KvCacheShape): ModelMemory {
  const bytes =
    2 * shape.layers * shape.kvHeads * shape.headDim * shape.maxTokens * shape.batch * shape.bytesPerValue;
  return {
    bytes,
    basis: `a KV cache of ${shape.batch} × ${shape.maxTokens} tokens over ${shape.layers} layers`,
  };
}

export interface FitCandidate {
  readonly index: number;
  readonly instanceType: string;
  /** The devices the model is sharded over; all the instance's accelerators when unset. */
  readonly tensorParallelDegree?: number;
}

export interface FitResult {
  readonly issues: InputIssue[];
  readonly warnings: string[];
}

/** GiB with one decimal; a small model (a test's, an example CNN's) in MiB or bytes, not "0.0 GiB". */
function gib(bytes: number): string {
  if (bytes >= GIB) return `${(bytes / GIB).toFixed(1)} GiB`;
  return bytes >= 1024 ** 2 ? `${(bytes / 1024 ** 2).toFixed(1)} MiB` : `${bytes} bytes`;
}

/** The issues (candidates that cannot hold the model) and warnings (candidates that cannot be checked). */
export function modelFit(candidates: readonly FitCandidate[], needed: readonly ModelMemory[]): FitResult {
  const bytes = needed.reduce((sum, part) => sum + part.bytes, 0);
  const basis = needed.map((part) => part.basis).join(' + ');
  const issues: InputIssue[] = [];
  const warnings: string[] = [];
  for (const candidate of candidates) {
    const spec = findInstance(candidate.instanceType);
    if (spec === undefined) continue;
    const available = availableMemory(candidate, spec);
    if (available === undefined) {
      warnings.push(
        `candidates[${candidate.index}] (${candidate.instanceType}): the instance table does not know its ` +
          `${spec.accelerator === 'none' ? 'host' : 'accelerator'} memory, so whether ${gib(bytes)} fits is not checked`,
      );
      continue;
    }
    if (bytes > available.bytes) {
      issues.push({
        field: `candidates[${candidate.index}].instanceType`,
        given: JSON.stringify(candidate.instanceType),
        expected:
          `an instance whose memory holds the model: it needs ${gib(bytes)} (${basis}), and ` +
          `${candidate.instanceType} has ${gib(available.bytes)} (${available.what})`,
      });
    }
  }
  return { issues, warnings };
}

function availableMemory(
  candidate: FitCandidate,
  spec: NonNullable<ReturnType<typeof findInstance>>,
): { bytes: number; what: string } | undefined {
  if (spec.accelerator === 'none') {
    return spec.memoryGiB === undefined ? undefined : { bytes: spec.memoryGiB * GIB, what: 'host memory' };
  }
  const total = spec.acceleratorMemoryGiB;
  const devices = spec.acceleratorCount;
  if (total === undefined || devices === undefined || devices === 0) return undefined;
  const used = Math.min(candidate.tensorParallelDegree ?? devices, devices);
  const unit = spec.accelerator.startsWith('nvidia-') ? 'GPU' : 'accelerator';
  return {
    bytes: (total / devices) * used * GIB,
    what: `${used} ${unit}${used === 1 ? '' : 's'} of ${total / devices} GiB`,
  };
}
