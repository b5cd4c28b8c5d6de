/**
 * Merge accuracy: 4 to 100 simulated workers, each with 10 000 lognormal latencies (median 20 ms;
 * worker 0 is slow, median 80 ms), go through the real aggregation (encoded histograms added).
 * Merged p50/p95/p99 must be within 0.1 % of the exact nearest-rank percentiles of all samples,
 * and the merged result far below the 256 KiB state limit. Beside them: what averaging the
 * workers' percentiles (as some distributed tools do) would have reported.
 */
import {
  aggregateWorkerResults,
  LatencyRecorder,
  encodeHistogram,
  STATE_PAYLOAD_LIMIT_BYTES,
  serializedSizeBytes,
} from '../core/load-test/index.js';
import type { WorkerResult } from '../core/load-test/index.js';
import { seededRandom, loadPlanSchema, slaSchema } from '../core/contracts/index.js';
import { exactPercentile, lognormalSampler } from './support/latency-samples.js';
import type { BenchRow } from './support/report.js';

const WORKER_COUNTS = [4, 16, 100];
const SAMPLES_PER_WORKER = 10_000;
const PERCENTILES = [50, 95, 99] as const;
const GOAL_RELATIVE_ERROR = 0.001;

interface MergeCase {
  readonly workers: number;
  readonly worstRelativeError: number;
  readonly averagedRelativeError: Record<string, number>;
  readonly exactMs: Record<string, number>;
  readonly mergedMs: Record<string, number>;
  readonly averagedMs: Record<string, number>;
  readonly mergedResultBytes: number;
  readonly allWorkerResultsBytes: number;
}

function simulateWorker(
  workerIndex: number,
  workers: number,
  random: () => number,
): { result: WorkerResult; samples: number[] } {
  const sample = lognormalSampler(random, Math.log(workerIndex === 0 ? 80_000 : 20_000), 0.5);
  const samples = Array.from({ length: SAMPLES_PER_WORKER }, () => Math.round(sample()));
  const recorder = new LatencyRecorder();
  for (const value of samples) recorder.record(value);
  const perBucket = SAMPLES_PER_WORKER / 20;
  return {
    samples,
    result: {
      schemaVersion: 1,
      workerIndex,
      workers,
      model: 'closed',
      startEpochMs: 0,
      finishedEpochMs: 30_000,
      stoppedBecause: 'completed',
      stopDetail: 'all 1 steps ran',
      steps: [
        {
          stepIndex: 0,
          load: workers * 4,
          workerLoad: 4,
          windowStartEpochMs: 0,
          windowMs: 30_000,
          activeFromMs: 0,
          activeToMs: 30_000,
          bucketMs: 1_500,
          okPerBucket: new Array<number>(20).fill(perBucket),
          requests: SAMPLES_PER_WORKER,
          ok: SAMPLES_PER_WORKER,
          errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
          errorSamples: [],
          late: 0,
          dropped: 0,
          histogram: encodeHistogram(recorder.toHistogram()),
          maxLatencyUs: recorder.maxUs,
        },
      ],
    },
  };
}

function runCase(workers: number): MergeCase {
  const random = seededRandom(workers);
  const simulated = Array.from({ length: workers }, (_, index) => simulateWorker(index, workers, random));
  const plan = loadPlanSchema.parse({
    steps: [workers * 4],
    workers,
    warmupSeconds: 0,
    stepDurationSeconds: 30,
  });
  const merged = aggregateWorkerResults(
    simulated.map((worker) => worker.result),
    slaSchema.parse({ p99LatencyMs: 10_000 }),
    plan,
  );
  const all = simulated.flatMap((worker) => worker.samples).sort((a, b) => a - b);
  const perWorkerSorted = simulated.map((worker) => [...worker.samples].sort((a, b) => a - b));
  const step = merged.steps[0];
  if (step === undefined) throw new Error(`no merged step for ${workers} workers`);
  const exactMs: Record<string, number> = {};
  const mergedMs: Record<string, number> = {};
  const averagedMs: Record<string, number> = {};
  const averagedRelativeError: Record<string, number> = {};
  let worstRelativeError = 0;
  for (const percentile of PERCENTILES) {
    const name = `p${percentile}`;
    const exact = exactPercentile(all, percentile) / 1000;
    const mergedValue = step.latencyMs[name as 'p50' | 'p95' | 'p99'];
    const averaged =
      perWorkerSorted.reduce((sum, sorted) => sum + exactPercentile(sorted, percentile), 0) / workers / 1000;
    exactMs[name] = exact;
    mergedMs[name] = mergedValue;
    averagedMs[name] = Math.round(averaged * 1000) / 1000;
    averagedRelativeError[name] = (averaged - exact) / exact;
    worstRelativeError = Math.max(worstRelativeError, Math.abs(mergedValue - exact) / exact);
  }
  return {
    workers,
    worstRelativeError,
    averagedRelativeError,
    exactMs,
    mergedMs,
    averagedMs,
    mergedResultBytes: serializedSizeBytes(merged),
    allWorkerResultsBytes: serializedSizeBytes(simulated.map((worker) => worker.result)),
  };
}

export function benchMergeAccuracy(): BenchRow {
  const cases = WORKER_COUNTS.map(runCase);
  const worst = Math.max(...cases.map((item) => item.worstRelativeError));
  const largestMerged = Math.max(...cases.map((item) => item.mergedResultBytes));
  const averagingP99 = cases
    .map((item) => `${(100 * (item.averagedRelativeError.p99 ?? 0)).toFixed(1)}%`)
    .join('/');
  return {
    name: `merge accuracy (${WORKER_COUNTS.join('/')} workers)`,
    goal: `<= ${GOAL_RELATIVE_ERROR * 100}% error, << 256 KiB`,
    measured: `worst ${(worst * 100).toFixed(3)}%, merged ${(largestMerged / 1024).toFixed(1)} KiB; averaging p99 would err ${averagingP99}`,
    pass: worst <= GOAL_RELATIVE_ERROR && largestMerged < STATE_PAYLOAD_LIMIT_BYTES / 10,
    details: { samplesPerWorker: SAMPLES_PER_WORKER, cases },
  };
}
