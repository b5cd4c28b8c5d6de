/**
 * Queue, dynamic batcher and backpressure in front of the worker pool.
 *
 * Requests wait in a FIFO queue. Whenever a worker is idle, the scheduler takes requests from the
 * head until the batch holds `maxBatchSize` samples (a request is never split), concatenates them
 * along the batch dimension, runs the batch once and hands each request its slice of the output.
 * With batching on (`maxBatchSize` > 1) a batch that is not full waits until the oldest request has
 * waited `maxBatchDelayMs`, the usual max-batch-size / max-delay trade-off of model servers.
 * A full queue rejects new requests at once (503) instead of letting latency grow without bound.
 */
import { ModelExecutionError, QueueFullError, RequestTimeoutError, ServerClosingError } from './errors.js';
import type { BatchOutput, BatchRunner } from './worker-pool.js';

export interface SchedulerOptions {
  readonly maxBatchSize: number;
  readonly maxBatchDelayMs: number;
  readonly maxQueue: number;
  readonly requestTimeoutMs: number;
  /** Values in one input sample, to concatenate and check requests. */
  readonly sampleSize: number;
}

export interface SchedulerMetrics {
  /** Requests accepted into the queue. */
  readonly requestsAccepted: number;
  readonly requestsSucceeded: number;
  readonly requestsFailed: number;
  readonly rejectedQueueFull: number;
  readonly timedOut: number;
  /** Model executions (one per batch). */
  readonly batchesRun: number;
  readonly samplesInferred: number;
  readonly largestBatch: number;
  /** Number of batches by batch size (in samples). */
  readonly batchSizes: Readonly<Record<string, number>>;
  readonly queued: number;
  readonly batchesInFlight: number;
}

/** The output of one request: its samples' rows of the model output. */
export type RequestOutput = BatchOutput;

interface QueuedRequest {
  readonly samples: Float32Array;
  readonly count: number;
  readonly enqueuedAt: number;
  readonly resolve: (output: RequestOutput) => void;
  readonly reject: (error: Error) => void;
  readonly deadline: NodeJS.Timeout;
  settled: boolean;
}

export class InferenceScheduler {
  private readonly queue: QueuedRequest[] = [];
  private batchTimer: NodeJS.Timeout | undefined;
  private inFlight = 0;
  private closing = false;
  private readonly idleWaiters: (() => void)[] = [];
  private readonly counters = {
    requestsAccepted: 0,
    requestsSucceeded: 0,
    requestsFailed: 0,
    rejectedQueueFull: 0,
    timedOut: 0,
    batchesRun: 0,
    samplesInferred: 0,
    largestBatch: 0,
  };
  private readonly batchSizes = new Map<number, number>();

  constructor(
    private readonly runner: BatchRunner,
    private readonly options: SchedulerOptions,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Queues `count` samples (concatenated in `samples`) and resolves with their outputs. */
  submit(samples: Float32Array, count: number): Promise<RequestOutput> {
    if (this.closing) {
      return Promise.reject(new ServerClosingError('The model server is shutting down'));
    }
    if (samples.length !== count * this.options.sampleSize) {
      return Promise.reject(
        new RangeError(
          `Got ${samples.length} values for ${count} samples, expected ${count * this.options.sampleSize}`,
        ),
      );
    }
    if (this.queue.length >= this.options.maxQueue) {
      this.counters.rejectedQueueFull += 1;
      return Promise.reject(
        new QueueFullError(
          `The request queue is full (${this.queue.length} waiting, limit ${this.options.maxQueue}): retry later`,
        ),
      );
    }
    this.counters.requestsAccepted += 1;
    return new Promise<RequestOutput>((resolve, reject) => {
      const request: QueuedRequest = {
        samples,
        count,
        enqueuedAt: this.now(),
        resolve,
        reject,
        deadline: setTimeout(() => {
          this.expire(request);
        }, this.options.requestTimeoutMs),
        settled: false,
      };
      this.queue.push(request);
      this.pump();
    });
  }

  /** Stops accepting requests, then resolves once every accepted request has been answered. */
  async drain(): Promise<void> {
    this.closing = true;
    // Nothing else will arrive: run what is queued now instead of waiting for fuller batches.
    this.pump();
    if (this.queue.length === 0 && this.inFlight === 0) return;
    await new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
    });
  }

  get isClosing(): boolean {
    return this.closing;
  }

  metrics(): SchedulerMetrics {
    return {
      ...this.counters,
      batchSizes: Object.fromEntries(
        [...this.batchSizes.entries()].sort(([a], [b]) => a - b).map(([size, n]) => [String(size), n]),
      ),
      queued: this.queue.length,
      batchesInFlight: this.inFlight,
    };
  }

  private pump(): void {
    while (this.runner.idleWorkers > 0 && this.queue.length > 0) {
      const waitMs = this.remainingBatchDelay();
      if (waitMs > 0) {
        this.scheduleBatchTimer(waitMs);
        return;
      }
      this.dispatch(this.takeBatch());
    }
    this.notifyIfIdle();
  }

  /** How much longer to wait for a fuller batch; 0 means run now. */
  private remainingBatchDelay(): number {
    const { maxBatchSize, maxBatchDelayMs } = this.options;
    const [oldest] = this.queue;
    if (maxBatchSize <= 1 || this.closing || oldest === undefined) return 0;
    const queuedSamples = this.queue.reduce((sum, request) => sum + request.count, 0);
    if (queuedSamples >= maxBatchSize) return 0;
    return Math.max(0, oldest.enqueuedAt + maxBatchDelayMs - this.now());
  }

  private scheduleBatchTimer(delayMs: number): void {
    if (this.batchTimer !== undefined) return;
    this.batchTimer = setTimeout(() => {
      this.batchTimer = undefined;
      this.pump();
    }, Math.ceil(delayMs));
  }

  /** Requests from the head of the queue up to maxBatchSize samples; always at least one. */
  private takeBatch(): QueuedRequest[] {
    const batch: QueuedRequest[] = [];
    let samples = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0];
      if (next === undefined) break;
      if (batch.length > 0 && samples + next.count > this.options.maxBatchSize) break;
      this.queue.shift();
      batch.push(next);
      samples += next.count;
    }
    return batch;
  }

  private dispatch(batch: readonly QueuedRequest[]): void {
    const batchSize = batch.reduce((sum, request) => sum + request.count, 0);
    this.inFlight += 1;
    this.counters.batchesRun += 1;
    this.counters.samplesInferred += batchSize;
    this.counters.largestBatch = Math.max(this.counters.largestBatch, batchSize);
    this.batchSizes.set(batchSize, (this.batchSizes.get(batchSize) ?? 0) + 1);

    this.runner
      .run(concatenate(batch, batchSize, this.options.sampleSize), batchSize)
      .then((result) => {
        this.answer(batch, result, batchSize);
      })
      .catch((error: unknown) => {
        const failure =
          error instanceof Error ? error : new ModelExecutionError(`The model failed: ${String(error)}`);
        for (const request of batch) this.settle(request, { error: failure });
      })
      .finally(() => {
        this.inFlight -= 1;
        this.pump();
      });
  }

  /** Splits the batch output into one slice per request, in order. */
  private answer(batch: readonly QueuedRequest[], result: BatchOutput, batchSize: number): void {
    const [outputBatch, ...rowShape] = result.dims;
    if (outputBatch !== batchSize) {
      const error = new ModelExecutionError(
        `Model output has shape [${result.dims.join(', ')}]: expected its first dimension to be the batch size ${batchSize}`,
      );
      for (const request of batch) this.settle(request, { error });
      return;
    }
    const rowSize = rowShape.reduce((product, dim) => product * dim, 1);
    let offset = 0;
    for (const request of batch) {
      const rows = result.output.slice(offset * rowSize, (offset + request.count) * rowSize);
      offset += request.count;
      this.settle(request, { output: { output: rows, dims: [request.count, ...rowShape] } });
    }
  }

  private expire(request: QueuedRequest): void {
    if (request.settled) return;
    const index = this.queue.indexOf(request);
    if (index >= 0) this.queue.splice(index, 1);
    this.counters.timedOut += 1;
    const waited = Math.round(this.now() - request.enqueuedAt);
    const where = index >= 0 ? 'still queued' : 'model still running';
    this.settle(request, {
      error: new RequestTimeoutError(
        `The invocation took longer than the ${this.options.requestTimeoutMs} ms timeout (waited ${waited} ms, ${where})`,
      ),
    });
    this.notifyIfIdle();
  }

  private settle(
    request: QueuedRequest,
    outcome: { readonly output: RequestOutput } | { readonly error: Error },
  ): void {
    if (request.settled) return;
    request.settled = true;
    clearTimeout(request.deadline);
    if ('output' in outcome) {
      this.counters.requestsSucceeded += 1;
      request.resolve(outcome.output);
    } else {
      this.counters.requestsFailed += 1;
      request.reject(outcome.error);
    }
  }

  private notifyIfIdle(): void {
    if (this.queue.length > 0 || this.inFlight > 0) return;
    if (this.batchTimer !== undefined) {
      clearTimeout(this.batchTimer);
      this.batchTimer = undefined;
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}

function concatenate(batch: readonly QueuedRequest[], batchSize: number, sampleSize: number): Float32Array {
  const [only] = batch;
  if (batch.length === 1 && only !== undefined) return only.samples;
  const input = new Float32Array(batchSize * sampleSize);
  let offset = 0;
  for (const request of batch) {
    input.set(request.samples, offset);
    offset += request.samples.length;
  }
  return input;
}
