/**
 * Decodes generation requests token by token over a step runner (the example generative model,
 * local/example-model/generative-model.ts, in a worker thread), with continuous batching: every step
 * runs the model once for up to `maxBatchSize` sequences, each feeding its next prompt token
 * (prefill) or its last generated token (decode); sequences join and leave between steps, as TGI's
 * and LMI's rolling batches do. So the server's settings change what a client measures: with a
 * batch of 1 a request waits for the ones before it to finish (time to first token grows with the
 * queue); with a larger batch they advance together and each step takes longer (inter-token
 * latency grows with the batch).
 *
 * The model runs in a worker thread (step-runner.ts), so the main thread writes each step's
 * tokens and reads new requests while the next step runs. One decoding loop per server: the
 * vision server's `workers` setting does not apply (docs/generative.md).
 */
import { seededRandom } from '../../../core/contracts/index.js';
import {
  encodePrompt,
  EOS_TOKEN_ID,
  GENERATIVE_VOCABULARY_SIZE,
  isSpecialToken,
  tokenText,
} from '../../example-model/index.js';
import { ModelExecutionError, QueueFullError, RequestTimeoutError, ServerClosingError } from '../errors.js';
import type { GenerationRequest } from './generation-request.js';
import type { StepOutput, StepRunner } from './step-runner.js';

export interface GeneratedToken {
  readonly id: number;
  readonly text: string;
  readonly special: boolean;
  /** Natural log of the token's probability at temperature 1. */
  readonly logprob: number;
}

/** TGI's finish reasons (`details.finish_reason`): the length limit or the end token. */
export type FinishReason = 'length' | 'eos_token';

export interface GenerationSummary {
  readonly finishReason: FinishReason;
  /** Tokens generated, the end token included (TGI's `details.generated_tokens`). */
  readonly generatedTokens: number;
  /** Tokens the prompt became (`<s>` included). */
  readonly inputTokens: number;
  /** The generated text, special tokens left out. */
  readonly text: string;
}

/**
 * Where a sequence's tokens go, as they are generated. The last token comes with the summary (the
 * formats put the final figures on the last token's event, as TGI does), and nothing after it; a
 * sequence that fails gets `fail` instead, once.
 */
export interface GenerationSink {
  token(token: GeneratedToken, last: GenerationSummary | undefined): void;
  fail(error: Error): void;
}

export interface GenerationSchedulerOptions {
  /** Sequences decoded together in one model run (TGI `MAX_BATCH_SIZE`, LMI rolling batch size). */
  readonly maxBatchSize: number;
  /** Sequences that may wait for a place in the batch; beyond it, QueueFullError (503). */
  readonly maxQueue: number;
  /** Deadline of one generation, queueing included; beyond it, RequestTimeoutError. */
  readonly requestTimeoutMs: number;
}

export interface GenerationMetrics {
  readonly stepsRun: number;
  readonly tokensGenerated: number;
  readonly sequencesFinished: number;
  /** Steps by the number of sequences they ran. */
  readonly batchSizes: Readonly<Record<string, number>>;
  readonly largestBatch: number;
  readonly active: number;
  readonly queued: number;
  readonly rejectedQueueFull: number;
  readonly timedOut: number;
}

interface Sequence {
  readonly sink: GenerationSink;
  readonly maxNewTokens: number;
  readonly temperature: number;
  readonly random: () => number;
  readonly deadline: number;
  readonly inputTokens: number;
  /** Prompt tokens not fed yet. */
  readonly pending: number[];
  readonly state: Float32Array;
  lastToken: number;
  generated: number;
  text: string;
  ended: boolean;
}

/** A running generation, which its HTTP response cancels when the client goes away. */
export interface SequenceHandle {
  cancel(): void;
}

export class GenerationScheduler {
  private readonly waiting: Sequence[] = [];
  private readonly active: Sequence[] = [];
  private running: Promise<void> | undefined;
  private closing = false;
  private stepsRun = 0;
  private tokensGenerated = 0;
  private sequencesFinished = 0;
  private largestBatch = 0;
  private rejectedQueueFull = 0;
  private timedOut = 0;
  private readonly batchSizes = new Map<number, number>();

  private readonly hiddenSize: number;

  constructor(
    private readonly runner: StepRunner,
    private readonly options: GenerationSchedulerOptions,
  ) {
    this.hiddenSize = runner.hiddenSize;
  }

  get isClosing(): boolean {
    return this.closing;
  }

  get isHealthy(): boolean {
    return this.runner.isAlive && !this.closing;
  }

  /** Queues a generation; its tokens go to `sink` as the steps produce them. */
  submit(request: GenerationRequest, sink: GenerationSink): SequenceHandle {
    if (this.closing) throw new ServerClosingError('The model server is shutting down');
    if (this.waiting.length >= this.options.maxQueue) {
      this.rejectedQueueFull += 1;
      throw new QueueFullError(
        `Queue full: ${this.waiting.length} generations wait for a place in the batch (MODEL_SERVER_MAX_QUEUE ${this.options.maxQueue}); retry later`,
      );
    }
    const prompt = encodePrompt(request.prompt);
    const sequence: Sequence = {
      sink,
      maxNewTokens: request.maxNewTokens,
      temperature: request.temperature,
      random: seededRandom(request.seed ?? Math.floor(Math.random() * 2 ** 32)),
      deadline: performance.now() + this.options.requestTimeoutMs,
      inputTokens: prompt.length,
      pending: prompt,
      state: new Float32Array(this.hiddenSize),
      lastToken: EOS_TOKEN_ID,
      generated: 0,
      text: '',
      ended: false,
    };
    this.waiting.push(sequence);
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
    return {
      cancel: () => {
        sequence.ended = true;
      },
    };
  }

  /** Refuses new generations and resolves once every accepted one has ended. */
  async drain(): Promise<void> {
    this.closing = true;
    await this.running;
  }

  async close(): Promise<void> {
    await this.drain();
    await this.runner.close();
  }

  metrics(): GenerationMetrics {
    return {
      stepsRun: this.stepsRun,
      tokensGenerated: this.tokensGenerated,
      sequencesFinished: this.sequencesFinished,
      batchSizes: Object.fromEntries([...this.batchSizes.entries()].map(([size, n]) => [String(size), n])),
      largestBatch: this.largestBatch,
      active: this.active.length,
      queued: this.waiting.length,
      rejectedQueueFull: this.rejectedQueueFull,
      timedOut: this.timedOut,
    };
  }

  private async loop(): Promise<void> {
    for (;;) {
      this.dropEnded();
      while (this.active.length < this.options.maxBatchSize && this.waiting.length > 0) {
        const next = this.waiting.shift();
        if (next !== undefined) this.active.push(next);
      }
      if (this.active.length === 0) return;
      await this.step([...this.active]);
    }
  }

  /** Ends sequences cancelled by their client or past their deadline, waiting or active. */
  private dropEnded(): void {
    const now = performance.now();
    for (const list of [this.waiting, this.active]) {
      for (let index = list.length - 1; index >= 0; index -= 1) {
        const sequence = list[index];
        if (sequence === undefined) continue;
        if (!sequence.ended && now > sequence.deadline) {
          this.timedOut += 1;
          this.end(sequence);
          sequence.sink.fail(
            new RequestTimeoutError(
              `Generation not finished within ${this.options.requestTimeoutMs} ms (SAGEMAKER_MODEL_SERVER_TIMEOUT), ` +
                `after ${sequence.generated} of ${sequence.maxNewTokens} tokens`,
            ),
          );
        }
        if (sequence.ended) list.splice(index, 1);
      }
    }
  }

  private async step(batch: readonly Sequence[]): Promise<void> {
    const size = batch.length;
    const hidden = this.hiddenSize;
    const tokens = new BigInt64Array(size);
    const states = new Float32Array(size * hidden);
    batch.forEach((sequence, row) => {
      tokens[row] = BigInt(sequence.pending.shift() ?? sequence.lastToken);
      states.set(sequence.state, row * hidden);
    });
    let output: StepOutput;
    try {
      output = await this.runner.step(tokens, states);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      for (const sequence of batch) {
        if (sequence.ended) continue;
        this.end(sequence);
        sequence.sink.fail(
          new ModelExecutionError(`The generative model failed on a step of ${size}: ${message}`),
        );
      }
      return;
    }
    const { logits: scores, nextStates: next } = output;
    this.stepsRun += 1;
    this.batchSizes.set(size, (this.batchSizes.get(size) ?? 0) + 1);
    this.largestBatch = Math.max(this.largestBatch, size);
    const vocabulary = GENERATIVE_VOCABULARY_SIZE;
    batch.forEach((sequence, row) => {
      if (sequence.ended) return;
      sequence.state.set(next.subarray(row * hidden, (row + 1) * hidden));
      if (sequence.pending.length > 0) return;
      const rowLogits = scores.subarray(row * vocabulary, (row + 1) * vocabulary);
      this.emit(sequence, pickToken(rowLogits, sequence.temperature, sequence.random));
    });
  }

  private emit(sequence: Sequence, picked: { readonly id: number; readonly logprob: number }): void {
    const special = isSpecialToken(picked.id);
    const token: GeneratedToken = {
      id: picked.id,
      text: tokenText(picked.id),
      special,
      logprob: picked.logprob,
    };
    sequence.lastToken = picked.id;
    sequence.generated += 1;
    this.tokensGenerated += 1;
    if (!special) sequence.text += token.text;
    const finishReason: FinishReason | undefined =
      picked.id === EOS_TOKEN_ID
        ? 'eos_token'
        : sequence.generated >= sequence.maxNewTokens
          ? 'length'
          : undefined;
    if (finishReason === undefined) {
      sequence.sink.token(token, undefined);
      return;
    }
    this.end(sequence);
    this.sequencesFinished += 1;
    sequence.sink.token(token, {
      finishReason,
      generatedTokens: sequence.generated,
      inputTokens: sequence.inputTokens,
      text: sequence.text,
    });
  }

  private end(sequence: Sequence): void {
    sequence.ended = true;
  }
}

/**
 * The next token from one row of logits: the highest score at temperature 0 (greedy), else a draw
 * from softmax(logits / temperature) with the sequence's seeded generator. The log-probability is
 * the token's at temperature 1, as TGI reports `logprob`.
 */
export function pickToken(
  logits: Float32Array,
  temperature: number,
  random: () => number,
): { readonly id: number; readonly logprob: number } {
  let best = 0;
  for (let id = 1; id < logits.length; id += 1) {
    if ((logits[id] ?? -Infinity) > (logits[best] ?? -Infinity)) best = id;
  }
  const max = logits[best] ?? 0;
  let id = best;
  if (temperature > 0) {
    const weights = Array.from(logits, (score) => Math.exp((score - max) / temperature));
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    let draw = random() * total;
    id = weights.length - 1;
    for (let candidate = 0; candidate < weights.length; candidate += 1) {
      draw -= weights[candidate] ?? 0;
      if (draw < 0) {
        id = candidate;
        break;
      }
    }
  }
  const logSum = Math.log(
    Array.from(logits, (score) => Math.exp(score - max)).reduce((sum, w) => sum + w, 0),
  );
  return { id, logprob: (logits[id] ?? max) - max - logSum };
}
