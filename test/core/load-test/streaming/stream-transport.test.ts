import { describe, expect, it } from '@jest/globals';
import { InternalStreamFailure, ModelStreamError } from '@aws-sdk/client-sagemaker-runtime';
import type { ResponseStream } from '@aws-sdk/client-sagemaker-runtime';
import type { InvokeOutcome, InvokeRequest } from '../../../../core/load-test/ports.js';
import { createStreamParser } from '../../../../core/load-test/streaming/stream-parser.js';
import {
  drainResponseStream,
  invokeStreamed,
} from '../../../../core/load-test/streaming/stream-transport.js';
import type { StreamInvokeTransport } from '../../../../core/load-test/streaming/stream-transport.js';
import { VirtualClock } from '../support/virtual-clock.js';
import { utf8 } from './split-streams.js';

const REQUEST: InvokeRequest = {
  body: utf8('{"inputs":"What is Deep Learning?","parameters":{"max_new_tokens":3},"stream":true}'),
  contentType: 'application/json',
};

const tgiEvent = (id: number, text: string, last?: { generatedTokens: number }): string =>
  `data:${JSON.stringify({
    token: { id, text, logprob: -0.1, special: false },
    generated_text: last === undefined ? null : 'text',
    details: last === undefined ? null : { finish_reason: 'length', generated_tokens: last.generatedTokens },
  })}\n\n`;

/** Hands each part over `afterUs` after the previous one, then settles with `end` (or throws it). */
class ScriptedStream implements StreamInvokeTransport {
  constructor(
    private readonly clock: VirtualClock,
    private readonly parts: readonly { afterUs: number; text: string }[],
    private readonly end: { afterUs: number; outcome: InvokeOutcome } | { afterUs: number; throws: Error },
  ) {}

  async invokeStream(
    _request: InvokeRequest,
    signal: AbortSignal,
    onPart: (bytes: Uint8Array) => void,
  ): Promise<InvokeOutcome> {
    for (const part of this.parts) {
      await this.clock.sleepUntil(this.clock.nowUs() + part.afterUs, signal);
      onPart(utf8(part.text));
    }
    await this.clock.sleepUntil(this.clock.nowUs() + this.end.afterUs, signal);
    if ('throws' in this.end) throw this.end.throws;
    return this.end.outcome;
  }
}

async function run(
  parts: readonly { afterUs: number; text: string }[],
  end: { afterUs: number; outcome: InvokeOutcome } | { afterUs: number; throws: Error },
) {
  const clock = new VirtualClock();
  await clock.sleepUntil(10_000);
  return invokeStreamed(
    new ScriptedStream(clock, parts, end),
    REQUEST,
    new AbortController().signal,
    createStreamParser('tgi'),
    clock,
  );
}

const OK: InvokeOutcome = { kind: 'ok' };

describe('invokeStreamed', () => {
  it('times each token at the arrival of its part, with the server count, for a complete stream', async () => {
    const result = await run(
      [
        { afterUs: 80_000, text: tgiEvent(1, 'Deep') },
        { afterUs: 20_000, text: tgiEvent(2, ' learning') + tgiEvent(3, ' is') },
        { afterUs: 25_000, text: tgiEvent(4, ' fun', { generatedTokens: 4 }) },
      ],
      { afterUs: 1_000, outcome: OK },
    );

    expect(result).toEqual({
      outcome: OK,
      timing: {
        e2eUs: 126_000,
        ttftUs: 80_000,
        interTokenUs: [20_000, 0, 25_000],
        outputTokens: 4,
        outputTokenSource: 'server',
        countedTokens: 4,
        finishReason: 'length',
      },
    });
  });

  it('fails with a model error on an error event in the stream, keeping the timing up to the end', async () => {
    const result = await run(
      [
        { afterUs: 50_000, text: tgiEvent(1, 'Deep') },
        { afterUs: 10_000, text: 'data:{"error":"CUDA error: out of memory","error_type":"generation"}\n\n' },
      ],
      { afterUs: 2_000, outcome: OK },
    );

    const message = 'TGI stream error: generation: CUDA error: out of memory';
    expect(result).toEqual({
      outcome: { kind: 'model-error', message },
      timing: {
        e2eUs: 62_000,
        ttftUs: 50_000,
        interTokenUs: [],
        outputTokens: 1,
        outputTokenSource: 'counted',
        countedTokens: 1,
      },
      streamFailure: { reason: 'model-error', message },
    });
  });

  it('fails as truncated when the body ends cleanly before the terminal event', async () => {
    const result = await run([{ afterUs: 40_000, text: tgiEvent(1, 'Deep') }], { afterUs: 0, outcome: OK });

    expect({
      outcome: result.outcome,
      reason: result.streamFailure?.reason,
      ttftUs: result.timing.ttftUs,
    }).toEqual({
      outcome: {
        kind: 'model-error',
        message:
          'the TGI stream ended without its terminal event (an event with "generated_text"): the container ' +
          'closed the response before finishing',
      },
      reason: 'truncated',
      ttftUs: 40_000,
    });
  });

  it("keeps the transport's failure, not a truncation, when the transport ends the stream", async () => {
    const timeout: InvokeOutcome = {
      kind: 'timeout',
      message: 'ModelStreamError ModelInvocationTimeExceeded: slow',
    };

    const result = await run(
      [
        { afterUs: 30_000, text: tgiEvent(1, 'Deep') },
        { afterUs: 30_000, text: tgiEvent(2, ' learning') },
      ],
      { afterUs: 5_000, outcome: timeout },
    );

    expect(result).toEqual({
      outcome: timeout,
      timing: {
        e2eUs: 65_000,
        ttftUs: 30_000,
        interTokenUs: [30_000],
        outputTokens: 2,
        outputTokenSource: 'counted',
        countedTokens: 2,
      },
    });
  });

  it("keeps the stream's failure when it came before the transport's", async () => {
    const result = await run([{ afterUs: 30_000, text: 'data:{"token":"not an object"}\n\n' }], {
      afterUs: 5_000,
      outcome: { kind: 'timeout', message: 'aborted' },
    });

    expect({ kind: result.outcome.kind, reason: result.streamFailure?.reason }).toEqual({
      kind: 'model-error',
      reason: 'malformed',
    });
  });

  it('turns a transport that throws into a client error, keeping the tokens read before', async () => {
    const result = await run([{ afterUs: 30_000, text: tgiEvent(1, 'Deep') }], {
      afterUs: 1_000,
      throws: new Error('socket hang up'),
    });

    expect({
      outcome: result.outcome,
      countedTokens: result.timing.countedTokens,
      e2eUs: result.timing.e2eUs,
    }).toEqual({
      outcome: { kind: 'client-error', message: 'the stream transport failed: Error: socket hang up' },
      countedTokens: 1,
      e2eUs: 31_000,
    });
  });
});

/**
 * The events are typed as the SDK's own `ResponseStream` union, so the compiler checks that what
 * the client yields fits the core's structural `ResponseStreamEvent`.
 */
async function* eventsOf(
  events: readonly ResponseStream[],
  thenThrow?: Error,
): AsyncGenerator<ResponseStream> {
  for (const event of events) yield await Promise.resolve(event);
  if (thenThrow !== undefined) throw thenThrow;
}

async function drain(events: readonly ResponseStream[], thenThrow?: Error) {
  const parts: string[] = [];
  const outcome = await drainResponseStream(eventsOf(events, thenThrow), (bytes) =>
    parts.push(new TextDecoder().decode(bytes)),
  );
  return { outcome, parts };
}

describe('drainResponseStream', () => {
  it('hands every payload part over in order and ends ok, skipping parts without bytes', async () => {
    const result = await drain([
      { PayloadPart: { Bytes: utf8('data:{"a"') } },
      { PayloadPart: {} },
      { PayloadPart: { Bytes: utf8(':1}\n\n') } },
    ]);

    expect(result).toEqual({ outcome: { kind: 'ok' }, parts: ['data:{"a"', ':1}\n\n'] });
  });

  it('reads a ModelStreamError ModelInvocationTimeExceeded event as a timeout', async () => {
    const result = await drain([
      { PayloadPart: { Bytes: utf8('x') } },
      {
        ModelStreamError: new ModelStreamError({
          $metadata: {},
          message: 'Model did not finish in time',
          Message: 'Model did not finish in time',
          ErrorCode: 'ModelInvocationTimeExceeded',
        }),
      },
    ]);

    expect(result).toEqual({
      outcome: {
        kind: 'timeout',
        message: 'ModelStreamError ModelInvocationTimeExceeded: Model did not finish in time',
      },
      parts: ['x'],
    });
  });

  it("reads the SDK's thrown ModelStreamError StreamBroken as a client error", async () => {
    const thrown = new ModelStreamError({
      $metadata: {},
      message: 'Connection reset',
      Message: 'Connection reset',
      ErrorCode: 'StreamBroken',
    });

    const result = await drain([{ PayloadPart: { Bytes: utf8('x') } }], thrown);

    expect(result.outcome).toEqual({
      kind: 'client-error',
      message: 'ModelStreamError StreamBroken: Connection reset',
    });
  });

  it('reads a ModelStreamError without a code as a model error', async () => {
    const result = await drain([
      {
        ModelStreamError: new ModelStreamError({
          $metadata: {},
          message: 'container crashed',
          Message: 'container crashed',
        }),
      },
    ]);

    expect(result.outcome).toEqual({ kind: 'model-error', message: 'ModelStreamError: container crashed' });
  });

  it("reads the SDK's thrown InternalStreamFailure as throttled (SageMaker-side, retry later)", async () => {
    const thrown = new InternalStreamFailure({
      $metadata: {},
      message: 'Internal failure',
      Message: 'Internal failure',
    });

    const result = await drain([], thrown);

    expect(result.outcome).toEqual({ kind: 'throttled', message: 'InternalStreamFailure: Internal failure' });
  });

  it('rethrows any other error for the adapter to classify', async () => {
    const aborted = new Error('The operation was aborted');
    aborted.name = 'AbortError';

    await expect(drain([{ PayloadPart: { Bytes: utf8('x') } }], aborted)).rejects.toBe(aborted);
  });
});
