import { describe, expect, it } from '@jest/globals';

import {
  ModelExecutionError,
  QueueFullError,
  RequestTimeoutError,
  ServerClosingError,
} from '../../../local/model-server/errors.js';
import { InferenceScheduler } from '../../../local/model-server/inference-scheduler.js';
import type { SchedulerOptions } from '../../../local/model-server/inference-scheduler.js';
import type { BatchOutput, BatchRunner } from '../../../local/model-server/worker-pool.js';

const SAMPLE_SIZE = 2;

interface FakeRun {
  readonly input: Float32Array;
  readonly batchSize: number;
  resolve(output: BatchOutput): void;
  reject(error: Error): void;
}

/**
 * Workers that run only when the test says so. The fake model's output row for a sample is
 * [first value of the sample, size of its batch], so tests can check how batches were split.
 */
class FakeRunner implements BatchRunner {
  readonly runs: FakeRun[] = [];
  private busy = 0;

  constructor(private readonly workers: number) {}

  get idleWorkers(): number {
    return this.workers - this.busy;
  }

  run(input: Float32Array, batchSize: number): Promise<BatchOutput> {
    this.busy += 1;
    return new Promise<BatchOutput>((resolve, reject) => {
      const release = () => {
        this.busy -= 1;
      };
      this.runs.push({
        input,
        batchSize,
        resolve: (output) => {
          release();
          resolve(output);
        },
        reject: (error) => {
          release();
          reject(error);
        },
      });
    });
  }

  /** Completes a run the way the fake model computes it. */
  complete(index: number): void {
    const run = this.runs[index];
    if (run === undefined) throw new Error(`No run ${index}`);
    const output = new Float32Array(run.batchSize * 2);
    for (let sample = 0; sample < run.batchSize; sample += 1) {
      output[sample * 2] = run.input[sample * SAMPLE_SIZE] ?? Number.NaN;
      output[sample * 2 + 1] = run.batchSize;
    }
    run.resolve({ output, dims: [run.batchSize, 2] });
  }
}

function scheduler(runner: BatchRunner, options: Partial<SchedulerOptions> = {}) {
  return new InferenceScheduler(runner, {
    maxBatchSize: 1,
    maxBatchDelayMs: 0,
    maxQueue: 10,
    requestTimeoutMs: 5000,
    sampleSize: SAMPLE_SIZE,
    ...options,
  });
}

/** `count` samples whose first values are first, first + 1, ... */
function samples(first: number, count = 1): Float32Array {
  return Float32Array.from({ length: count * SAMPLE_SIZE }, (_, i) =>
    i % SAMPLE_SIZE === 0 ? first + i / SAMPLE_SIZE : -1,
  );
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('InferenceScheduler', () => {
  it('runs each request alone on its own worker when batching is off', async () => {
    // Prepare
    const runner = new FakeRunner(2);
    const subject = scheduler(runner);

    // Act
    const first = subject.submit(samples(10), 1);
    const second = subject.submit(samples(20), 1);
    runner.complete(0);
    runner.complete(1);

    // Assert
    expect(runner.runs.map((run) => run.batchSize)).toEqual([1, 1]);
    await expect(first).resolves.toEqual({ output: Float32Array.from([10, 1]), dims: [1, 2] });
    await expect(second).resolves.toEqual({ output: Float32Array.from([20, 1]), dims: [1, 2] });
  });

  it('combines requests that arrive within the batch delay into one run and splits its output', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxBatchSize: 8, maxBatchDelayMs: 30 });

    // Act
    const requests = [
      subject.submit(samples(10), 1),
      subject.submit(samples(20, 2), 2),
      subject.submit(samples(30), 1),
    ];
    const runsBeforeDelay = runner.runs.length;
    await sleep(60);
    runner.complete(0);

    // Assert
    expect(runsBeforeDelay).toBe(0);
    expect(runner.runs.map((run) => run.batchSize)).toEqual([4]);
    const outputs = await Promise.all(requests);
    expect(outputs.map((output) => Array.from(output.output))).toEqual([
      [10, 4],
      [20, 4, 21, 4],
      [30, 4],
    ]);
    expect(outputs.map((output) => output.dims)).toEqual([
      [1, 2],
      [2, 2],
      [1, 2],
    ]);
    expect(subject.metrics()).toMatchObject({ batchesRun: 1, largestBatch: 4, batchSizes: { '4': 1 } });
  });

  it('runs a full batch at once without waiting for the delay', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxBatchSize: 2, maxBatchDelayMs: 10_000 });

    // Act
    const requests = [subject.submit(samples(1), 1), subject.submit(samples(2), 1)];

    // Assert
    expect(runner.runs.map((run) => run.batchSize)).toEqual([2]);
    expect(Array.from(runner.runs[0]?.input ?? [])).toEqual([1, -1, 2, -1]);
    runner.complete(0);
    await Promise.all(requests);
  });

  it('never splits a request across batches', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxBatchSize: 3, maxBatchDelayMs: 0 });

    // Act
    const first = subject.submit(samples(1, 2), 2);
    const second = subject.submit(samples(5, 2), 2);
    runner.complete(0);
    await first;
    await settle();
    runner.complete(1);
    await second;

    // Assert
    expect(runner.runs.map((run) => run.batchSize)).toEqual([2, 2]);
  });

  it('fails when the queue is full, without queueing the request', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxQueue: 1 });
    const running = subject.submit(samples(1), 1);
    const queued = subject.submit(samples(2), 1);

    // Act
    const rejected = subject.submit(samples(3), 1);

    // Assert
    await expect(rejected).rejects.toThrow(QueueFullError);
    await expect(rejected).rejects.toThrow('The request queue is full (1 waiting, limit 1): retry later');
    expect(subject.metrics()).toMatchObject({ queued: 1, rejectedQueueFull: 1, requestsAccepted: 2 });
    runner.complete(0);
    await running;
    await settle();
    runner.complete(1);
    await queued;
  });

  it('fails a request that waits past its deadline and drops it from the queue', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { requestTimeoutMs: 20 });
    void subject.submit(samples(1), 1).catch(() => undefined); // never completes

    // Act
    const waiting = subject.submit(samples(2), 1);

    // Assert
    await expect(waiting).rejects.toThrow(RequestTimeoutError);
    expect(subject.metrics()).toMatchObject({ queued: 0, timedOut: 2 });
    expect(runner.runs).toHaveLength(1);
  });

  it('fails every request of a batch when the model fails', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxBatchSize: 2, maxBatchDelayMs: 10_000 });
    const first = subject.submit(samples(1), 1);
    const second = subject.submit(samples(2), 1);

    // Act
    runner.runs[0]?.reject(new ModelExecutionError('The model failed: out of memory'));

    // Assert
    await expect(first).rejects.toThrow('The model failed: out of memory');
    await expect(second).rejects.toThrow(ModelExecutionError);
    expect(subject.metrics()).toMatchObject({ requestsFailed: 2, batchesInFlight: 0 });
  });

  it('fails the batch when the model output has another batch size', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxBatchSize: 2, maxBatchDelayMs: 10_000 });
    const first = subject.submit(samples(1), 1);
    const second = subject.submit(samples(2), 1);

    // Act
    runner.runs[0]?.resolve({ output: new Float32Array(2), dims: [1, 2] });

    // Assert
    await expect(first).rejects.toThrow(
      'Model output has shape [1, 2]: expected its first dimension to be the batch size 2',
    );
    await expect(second).rejects.toThrow(ModelExecutionError);
  });

  it('drains by answering accepted requests at once and refusing new ones', async () => {
    // Prepare
    const runner = new FakeRunner(1);
    const subject = scheduler(runner, { maxBatchSize: 4, maxBatchDelayMs: 10_000 });
    const accepted = subject.submit(samples(1), 1);
    let drained = false;

    // Act
    const draining = subject.drain().then(() => {
      drained = true;
    });
    const refused = subject.submit(samples(2), 1).catch((error: unknown) => error);
    await settle();
    const drainedBeforeCompletion = drained;
    runner.complete(0);
    await draining;

    // Assert
    expect(await refused).toBeInstanceOf(ServerClosingError);
    expect(runner.runs.map((run) => run.batchSize)).toEqual([1]);
    expect(drainedBeforeCompletion).toBe(false);
    await expect(accepted).resolves.toMatchObject({ dims: [1, 2] });
  });
});
