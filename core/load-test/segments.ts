import { LoadTestAbortedError } from '../contracts/index.js';
import { mergeErrorSamples } from './error-samples.js';
import { encodeHistogram, mergeEncodedHistograms } from './histogram.js';
import { addErrorCounts, emptyErrorCounts } from './results.js';
import { addPayloadFigures } from './aggregate.js';
import { longestStall } from './stall.js';
import { addTimelines } from './timeline.js';
import type { WorkerResult, WorkerStep } from './results.js';
import { streamOfParts } from './streaming/merge.js';

/**
 * A step longer than one worker invocation is measured in parts, one per segment of the schedule
 * (engine.ts `LoadSegment`). Parts of one worker's step share the window's coordinates (ms from
 * the window's start on the schedule, buckets of the same width), so they add up exactly:
 * histograms by HdrHistogram addition, counts and throughput buckets by sum, the covered range
 * from the first part's start to the last part's end. A step split in N segments thus gives the
 * same counts as one long window.
 */
export function mergeStepParts(parts: readonly WorkerStep[]): WorkerStep {
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (first === undefined || last === undefined) {
    throw new LoadTestAbortedError('cannot merge a step without any part: expected at least one');
  }
  if (parts.length === 1) return first;
  const strays = parts.filter(
    (part) => part.stepIndex !== first.stepIndex || part.okPerBucket.length !== first.okPerBucket.length,
  );
  if (strays.length > 0) {
    throw new LoadTestAbortedError(
      `cannot merge parts of different steps: expected step ${first.stepIndex} with ${first.okPerBucket.length} buckets, got steps [${parts.map((part) => part.stepIndex).join(', ')}]`,
    );
  }
  const errors = emptyErrorCounts();
  for (const part of parts) addErrorCounts(errors, part.errors);
  const sum = (value: (part: WorkerStep) => number): number =>
    parts.reduce((total, part) => total + value(part), 0);
  const { cutAtSegmentEnd: _firstCut, stall: _firstStall, ...base } = first;
  return {
    ...base,
    activeFromMs: first.activeFromMs,
    activeToMs: last.activeToMs,
    okPerBucket: first.okPerBucket.map((_, index) => sum((part) => part.okPerBucket[index] ?? 0)),
    requests: sum((part) => part.requests),
    ok: sum((part) => part.ok),
    errors,
    errorSamples: mergeErrorSamples(parts),
    late: sum((part) => part.late),
    dropped: sum((part) => part.dropped),
    histogram: encodeHistogram(mergeEncodedHistograms(parts.map((part) => part.histogram))),
    maxLatencyUs: Math.max(...parts.map((part) => part.maxLatencyUs)),
    ...stallOf(parts),
    ...payloadsOf(parts),
    ...streamOfParts(parts),
    ...timelineOf(parts),
    ...(last.cutAtSegmentEnd === true ? { cutAtSegmentEnd: true as const } : {}),
  };
}

/** One worker's steps over its segments so far, parts merged; a step still cut is kept, flagged. */
export function stepsOverSegments(results: readonly WorkerResult[]): WorkerStep[] {
  const parts = new Map<number, WorkerStep[]>();
  for (const step of results.flatMap((result) => result.steps)) {
    parts.set(step.stepIndex, [...(parts.get(step.stepIndex) ?? []), step]);
  }
  return [...parts.keys()].sort((a, b) => a - b).map((index) => mergeStepParts(parts.get(index) ?? []));
}

/**
 * One worker's results of consecutive segments (0, 1, …) as the result of one invocation that
 * ran them all: parts merged per step, requests issued added, the last segment's stop reason. A
 * step the last segment cut and no later segment resumed did not get its whole window and is
 * left out, as a step cut by a deadline would be.
 */
export function combineSegments(results: readonly WorkerResult[]): WorkerResult {
  const first = results[0];
  const last = results[results.length - 1];
  if (first === undefined || last === undefined) {
    throw new LoadTestAbortedError('no segment results to combine: expected at least one');
  }
  const order = results.map((result) => result.segmentIndex ?? 0);
  if (
    order.some((segment, index) => segment !== index || results[index]?.workerIndex !== first.workerIndex)
  ) {
    throw new LoadTestAbortedError(
      `worker ${first.workerIndex}'s segment results are not consecutive from 0: got segments [${order.join(', ')}] of workers [${results.map((result) => result.workerIndex).join(', ')}]`,
    );
  }
  if (results.length === 1 && !first.steps.some((step) => step.cutAtSegmentEnd === true)) return first;
  const steps = stepsOverSegments(results).filter((step) => step.cutAtSegmentEnd !== true);
  return {
    ...first,
    finishedEpochMs: last.finishedEpochMs,
    segmentIndex: last.segmentIndex ?? 0,
    requestsIssued: results.reduce((sum, result) => sum + (result.requestsIssued ?? 0), 0),
    steps,
    stoppedBecause: last.stoppedBecause,
    stopDetail: results.length > 1 ? `segment ${order.length}: ${last.stopDetail}` : last.stopDetail,
  };
}

/**
 * The longest stall of a step's parts. A silence across a segment's end is seen as two: the next
 * part starts with nothing in flight (its invocation's own requests), so each part judges its own.
 */
function stallOf(parts: readonly WorkerStep[]): Pick<WorkerStep, 'stall'> {
  const stall = longestStall(parts.map((part) => part.stall));
  return stall === undefined ? {} : { stall };
}

/** A payload mix's figures of one step's parts, added up as the step's are; nothing for one payload. */
function payloadsOf(parts: readonly WorkerStep[]): Pick<WorkerStep, 'payloads'> {
  const added = addPayloadFigures(parts);
  return added === undefined ? {} : { payloads: added.map(({ figures }) => figures) };
}

/** A ramp step's timeline over its parts, bucket by bucket; nothing for a constant step. */
function timelineOf(parts: readonly WorkerStep[]): Pick<WorkerStep, 'timeline'> {
  const added = addTimelines(parts);
  return added === undefined ? {} : { timeline: added };
}
