import type { ClassifierRule, TensorRule } from '../contracts/index.js';
import type { TensorAnswer } from './tensor-answer.js';

/**
 * The tensor and classifier rules on one input's answers. Each comparison says why two answers
 * cannot be compared at all (different shapes, an empty answer, a value that is not a finite
 * number), or measures them.
 */

export type Incomparable = { readonly comparable: false; readonly problem: string };

export type TensorComparison =
  | Incomparable
  | {
      readonly comparable: true;
      readonly maxAbsoluteDifference: number;
      /** Over the elements whose reference value is not 0; undefined when every one is 0. */
      readonly maxRelativeDifference: number | undefined;
      /** The largest element difference in multiples of the rule's allowance for that element. */
      readonly distance: number;
    };

export type ClassifierComparison =
  | Incomparable
  | {
      readonly comparable: true;
      readonly rows: number;
      readonly agreeingRows: number;
      /** The worst row's share of the reference's top classes missing from the candidate's. */
      readonly distance: number;
    };

/** Element `flat` of `shape` as `[i, j, …]`. */
export function elementIndex(shape: readonly number[], flat: number): string {
  const indexes: number[] = [];
  let rest = flat;
  for (let depth = shape.length - 1; depth >= 0; depth -= 1) {
    const size = shape[depth] ?? 1;
    indexes.unshift(size === 0 ? 0 : rest % size);
    rest = size === 0 ? 0 : Math.floor(rest / size);
  }
  return `[${indexes.join(', ')}]`;
}

const shapeText = (shape: readonly number[]): string => `[${shape.join(', ')}]`;

/** Why the two answers cannot be compared element by element; the reference's own checks are apart. */
function shapeProblem(reference: TensorAnswer, candidate: TensorAnswer): string | undefined {
  if (candidate.values.length === 0 && reference.values.length > 0) {
    return `an empty answer (the reference answers ${reference.values.length} elements)`;
  }
  if (
    reference.shape.length !== candidate.shape.length ||
    reference.shape.some((size, index) => size !== candidate.shape[index])
  ) {
    return `answers of different shapes: the reference's ${shapeText(reference.shape)}, the candidate's ${shapeText(candidate.shape)}`;
  }
  const flat = candidate.values.findIndex((value) => !Number.isFinite(value));
  if (flat !== -1) {
    return `${String(candidate.values[flat])} at element ${elementIndex(candidate.shape, flat)}, where the reference answers ${String(reference.values[flat])}`;
  }
  return undefined;
}

/** Why an answer cannot serve as a reference for any rule on tensors. */
export function tensorReferenceProblem(reference: TensorAnswer): string | undefined {
  if (reference.values.length === 0) return 'the reference answered nothing';
  const flat = reference.values.findIndex((value) => !Number.isFinite(value));
  if (flat !== -1) {
    return `the reference answered ${String(reference.values[flat])} at element ${elementIndex(reference.shape, flat)}`;
  }
  return undefined;
}

/**
 * numpy's `isclose` per element: |c − r| ≤ atol + rtol × |r|; the distance is the largest
 * |c − r| ÷ (atol + rtol × |r|), so above 1 is beyond tolerance. atol is above 0 (the schema's
 * rule), so the ratio is finite; it is capped at the largest double should a huge difference meet a
 * tiny allowance.
 */
export function compareTensors(
  reference: TensorAnswer,
  candidate: TensorAnswer,
  rule: TensorRule,
): TensorComparison {
  const problem = shapeProblem(reference, candidate);
  if (problem !== undefined) return { comparable: false, problem };
  let maxAbsoluteDifference = 0;
  let maxRelativeDifference: number | undefined;
  let distance = 0;
  reference.values.forEach((expected, index) => {
    // Two finite doubles of opposite sign can differ by more than the largest double.
    const difference = Math.min(
      Math.abs((candidate.values[index] ?? Number.NaN) - expected),
      Number.MAX_VALUE,
    );
    maxAbsoluteDifference = Math.max(maxAbsoluteDifference, difference);
    if (expected !== 0) {
      maxRelativeDifference = Math.max(maxRelativeDifference ?? 0, difference / Math.abs(expected));
    }
    const allowance = rule.maxAbsoluteDifference + rule.maxRelativeDifference * Math.abs(expected);
    distance = Math.max(distance, Math.min(difference / allowance, Number.MAX_VALUE));
  });
  return { comparable: true, maxAbsoluteDifference, maxRelativeDifference, distance };
}

/** The classes of a row of scores, the `k` highest first; a tie goes to the lower class index. */
export function topClasses(row: Float64Array, k: number): number[] {
  return [...row.keys()].sort((a, b) => (row[b] ?? 0) - (row[a] ?? 0) || a - b).slice(0, k);
}

/** The rows of a classifier's answer: its last dimension holds the classes. */
function rowsOf(answer: TensorAnswer): Float64Array[] {
  const classes = answer.shape[answer.shape.length - 1] ?? 0;
  const rows: Float64Array[] = [];
  for (let start = 0; start + classes <= answer.values.length && classes > 0; start += classes) {
    rows.push(answer.values.subarray(start, start + classes));
  }
  return rows;
}

/** Why an answer cannot serve as a classifier's reference under this rule. */
export function classifierReferenceProblem(
  reference: TensorAnswer,
  rule: ClassifierRule,
): string | undefined {
  const problem = tensorReferenceProblem(reference);
  if (problem !== undefined) return problem;
  const classes = reference.shape[reference.shape.length - 1];
  if (classes === undefined) return 'the reference answered a single number, not a row of class scores';
  if (classes < rule.topK) {
    return `the reference answers ${classes} classes per row, fewer than the rule's topK ${rule.topK}`;
  }
  return undefined;
}

/**
 * Row by row, whether the candidate ranks the reference's `topK` classes first (as a set: the order
 * among them is not judged, as a consumer of a top-k list reads it as one).
 */
export function compareClassifiers(
  reference: TensorAnswer,
  candidate: TensorAnswer,
  rule: ClassifierRule,
): ClassifierComparison {
  const problem = shapeProblem(reference, candidate);
  if (problem !== undefined) return { comparable: false, problem };
  const candidateRows = rowsOf(candidate);
  let agreeingRows = 0;
  let distance = 0;
  const referenceRows = rowsOf(reference);
  referenceRows.forEach((row, index) => {
    const expected = topClasses(row, rule.topK);
    const got = new Set(topClasses(candidateRows[index] ?? new Float64Array(), rule.topK));
    const missing = expected.filter((label) => !got.has(label)).length;
    if (missing === 0) agreeingRows += 1;
    distance = Math.max(distance, missing / rule.topK);
  });
  return { comparable: true, rows: referenceRows.length, agreeingRows, distance };
}

/** Whether two answers of the reference to one input agree, by the rule (its determinism check). */
export function sameTensorAnswer(first: TensorAnswer, second: TensorAnswer, rule: TensorRule): boolean {
  const comparison = compareTensors(first, second, rule);
  return comparison.comparable && comparison.distance <= 1;
}

export function sameClassification(first: TensorAnswer, second: TensorAnswer, rule: ClassifierRule): boolean {
  const comparison = compareClassifiers(first, second, rule);
  return comparison.comparable && comparison.agreeingRows === comparison.rows;
}

/**
 * An answer as a reader sees it: its shape, then its elements to six significant digits, written
 * only until `maxChars` is passed (an answer may hold millions of elements).
 */
export function showTensor(answer: TensorAnswer, maxChars: number): string {
  let text = shapeText(answer.shape);
  for (let index = 0; index < answer.values.length && text.length <= maxChars; index += 1) {
    const value = answer.values[index] ?? Number.NaN;
    text += `${index === 0 ? ' ' : ', '}${Number.isFinite(value) ? String(Number(value.toPrecision(6))) : String(value)}`;
  }
  return text;
}
