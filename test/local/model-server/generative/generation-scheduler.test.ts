import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';

import {
  GENERATIVE_VOCABULARY,
  GENERATIVE_VOCABULARY_SIZE,
} from '../../../../local/example-model/generative-vocabulary.js';
import type { GenerationRequest } from '../../../../local/model-server/generative/generation-request.js';
import {
  GenerationScheduler,
  pickToken,
} from '../../../../local/model-server/generative/generation-scheduler.js';
import type {
  GeneratedToken,
  GenerationSummary,
} from '../../../../local/model-server/generative/generation-scheduler.js';
import type { StepOutput, StepRunner } from '../../../../local/model-server/generative/step-runner.js';

/** A model that always scores `favourite` highest, recording each step's batch size. */
class FakeRunner implements StepRunner {
  readonly hiddenSize = 2;
  readonly isAlive = true;
  readonly batchSizes: number[] = [];

  constructor(
    private readonly favourite = 10,
    private readonly delayMs = 0,
  ) {}

  async step(tokens: BigInt64Array): Promise<StepOutput> {
    this.batchSizes.push(tokens.length);
    if (this.delayMs > 0) await sleep(this.delayMs);
    const logits = new Float32Array(tokens.length * GENERATIVE_VOCABULARY_SIZE);
    for (let row = 0; row < tokens.length; row += 1)
      logits[row * GENERATIVE_VOCABULARY_SIZE + this.favourite] = 5;
    return { logits, nextStates: new Float32Array(tokens.length * this.hiddenSize) };
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

const request = (overrides: Partial<GenerationRequest> = {}): GenerationRequest => ({
  api: 'generate',
  prompt: 'model',
  maxNewTokens: 1,
  temperature: 0,
  stream: true,
  includeUsage: false,
  details: false,
  ...overrides,
});

/** Collects one sequence's tokens; `ended` resolves with its summary or its error. */
function collector() {
  const tokens: GeneratedToken[] = [];
  let settle: (value: GenerationSummary | Error) => void = () => undefined;
  const ended = new Promise<GenerationSummary | Error>((resolve) => {
    settle = resolve;
  });
  const sink = {
    token(token: GeneratedToken, last: GenerationSummary | undefined) {
      tokens.push(token);
      if (last !== undefined) settle(last);
    },
    fail(error: Error) {
      settle(error);
    },
  };
  return { tokens, ended, sink };
}

const options = { maxBatchSize: 2, maxQueue: 10, requestTimeoutMs: 10_000 };

describe('GenerationScheduler', () => {
  it('decodes up to maxBatchSize sequences per step and admits the next one when a place frees', async () => {
    // Prepare: each prompt is <s> + one word; the step that feeds the word gives the one token.
    const runner = new FakeRunner();
    const scheduler = new GenerationScheduler(runner, options);
    const sequences = [collector(), collector(), collector()];

    // Act
    for (const { sink } of sequences) scheduler.submit(request(), sink);
    await Promise.all(sequences.map(({ ended }) => ended));

    // Assert
    // The first sequence starts alone (the loop starts on the first submit); the next join it at the
    // next step, and the third takes the place the first frees.
    expect(runner.batchSizes).toEqual([1, 2, 2, 1]);
    expect(scheduler.metrics()).toMatchObject({
      stepsRun: 4,
      largestBatch: 2,
      batchSizes: { '1': 2, '2': 2 },
    });
  });

  it('ends a sequence at max_new_tokens with finish reason length and its text', async () => {
    // Prepare
    const scheduler = new GenerationScheduler(
      new FakeRunner(GENERATIVE_VOCABULARY.indexOf('model')),
      options,
    );
    const { tokens, ended, sink } = collector();

    // Act
    scheduler.submit(request({ maxNewTokens: 3 }), sink);
    const summary = await ended;

    // Assert
    expect(tokens.map((token) => token.text)).toEqual([' model', ' model', ' model']);
    expect(summary).toEqual({
      finishReason: 'length',
      generatedTokens: 3,
      inputTokens: 2,
      text: ' model model model',
    });
  });

  it('ends a sequence at the end token, counted but not text', async () => {
    // Prepare
    const scheduler = new GenerationScheduler(new FakeRunner(0), options);
    const { tokens, ended, sink } = collector();

    // Act
    scheduler.submit(request({ maxNewTokens: 5 }), sink);
    const summary = await ended;

    // Assert
    expect(tokens).toEqual([{ id: 0, text: '</s>', special: true, logprob: expect.any(Number) }]);
    expect(summary).toEqual({ finishReason: 'eos_token', generatedTokens: 1, inputTokens: 2, text: '' });
  });

  it('refuses a sequence when maxQueue sequences already wait, with a 503 message', async () => {
    // Prepare: the first sequence takes the only place in the batch, the second waits.
    const scheduler = new GenerationScheduler(new FakeRunner(10, 50), {
      ...options,
      maxBatchSize: 1,
      maxQueue: 1,
    });
    scheduler.submit(request(), collector().sink);
    scheduler.submit(request(), collector().sink);

    // Act / Assert
    expect(() => scheduler.submit(request(), collector().sink)).toThrow(
      'Queue full: 1 generations wait for a place in the batch (MODEL_SERVER_MAX_QUEUE 1); retry later',
    );
    await scheduler.drain();
  });

  it('fails a sequence past its deadline with a RequestTimeoutError', async () => {
    // Prepare
    const scheduler = new GenerationScheduler(new FakeRunner(10, 30), { ...options, requestTimeoutMs: 20 });
    const { ended, sink } = collector();

    // Act
    scheduler.submit(request({ maxNewTokens: 5 }), sink);
    const error = await ended;

    // Assert
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).name).toBe('RequestTimeoutError');
    expect((error as Error).message).toBe(
      'Generation not finished within 20 ms (SAGEMAKER_MODEL_SERVER_TIMEOUT), after 0 of 5 tokens',
    );
  });

  it('stops decoding a sequence its client cancelled', async () => {
    // Prepare
    const runner = new FakeRunner(10, 5);
    const scheduler = new GenerationScheduler(runner, options);
    const { tokens, sink } = collector();
    const handle = scheduler.submit(request({ maxNewTokens: 100 }), {
      ...sink,
      token(token, last) {
        sink.token(token, last);
        if (tokens.length === 2) handle.cancel();
      },
    });

    // Act
    await scheduler.drain();

    // Assert
    expect(tokens).toHaveLength(2);
    // <s>, then the word (first token), then the second token: no step after the cancel.
    expect(runner.batchSizes).toEqual([1, 1, 1]);
  });

  it('refuses new sequences once draining', async () => {
    // Prepare
    const scheduler = new GenerationScheduler(new FakeRunner(), options);

    // Act
    await scheduler.drain();

    // Assert
    expect(() => scheduler.submit(request(), collector().sink)).toThrow('The model server is shutting down');
  });
});

describe('pickToken', () => {
  const logits = Float32Array.from([0, 2, 1, 2.5, -1]);

  it('takes the highest score at temperature 0, with its log-probability at temperature 1', () => {
    // Act
    const picked = pickToken(logits, 0, () => 0.99);

    // Assert
    const total = [0, 2, 1, 2.5, -1].reduce((sum, score) => sum + Math.exp(score), 0);
    expect(picked.id).toBe(3);
    expect(picked.logprob).toBeCloseTo(2.5 - Math.log(total), 10);
  });

  it('draws from the softmax with the generator it is given', () => {
    // Act: a draw of 0 lands on the first token, one just below 1 on the last.
    const first = pickToken(logits, 1, () => 0);
    const last = pickToken(logits, 1, () => 0.999_999);

    // Assert
    expect([first.id, last.id]).toEqual([0, 4]);
  });
});
