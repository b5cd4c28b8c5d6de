import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { systemClock } from '../../../../core/load-test/clock.js';
import { createStreamParser, invokeStreamed } from '../../../../core/load-test/streaming/index.js';
import { createHttpStreamTransport } from '../../../../local/adapters/http-stream-transport.js';
import { writeExampleModel } from '../../../../local/example-model/example-model.js';
import { writeGenerativeModel } from '../../../../local/example-model/generative-model.js';
import {
  isGenerativeModelFile,
  readGenerateFormatFromEnv,
  startGenerativeServer,
} from '../../../../local/model-server/generative/generative-server.js';
import type { GenerativeServerHandle } from '../../../../local/model-server/generative/generative-server.js';
import type { StreamFormat } from '../../../../core/contracts/stream-format.js';

let dir: string;
let modelPath: string;
/** TGI format, up to 4 sequences per step. */
let tgi: GenerativeServerHandle;
/** LMI JSON Lines format, one sequence at a time. */
let lmi: GenerativeServerHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'generative-server-'));
  modelPath = join(dir, 'model.onnx');
  // The default model: 1 to 2 ms per step on one thread, so the gaps between tokens are real.
  await writeGenerativeModel(modelPath);
  const common = { modelDir: dir, port: 0, host: '127.0.0.1', intraOpThreads: 1 };
  [tgi, lmi] = await Promise.all([
    startGenerativeServer(modelPath, { ...common, generateFormat: 'tgi', maxBatchSize: 4 }),
    startGenerativeServer(modelPath, { ...common, generateFormat: 'lmi-jsonlines', maxBatchSize: 1 }),
  ]);
});

afterAll(async () => {
  await Promise.all([tgi.close(), lmi.close()]);
  await rm(dir, { recursive: true, force: true });
});

const json = (body: unknown) => ({
  body: new TextEncoder().encode(JSON.stringify(body)),
  contentType: 'application/json',
});

/** One streamed request read the way the load test will read it: the local transport and a parser. */
async function streamOnce(server: GenerativeServerHandle, format: StreamFormat, body: unknown) {
  const transport = createHttpStreamTransport({
    origin: server.url,
    connections: 1,
    requestTimeoutMs: 10_000,
  });
  try {
    return await invokeStreamed(
      transport,
      json(body),
      new AbortController().signal,
      createStreamParser(format),
      systemClock,
    );
  } finally {
    await transport.close();
  }
}

async function invoke(
  server: GenerativeServerHandle,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}/invocations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const PROMPT = 'which instance serves the model with the best latency';

describe('generative model server', () => {
  it('streams TGI events one token per step, which the stream transport and TGI parser time end to end', async () => {
    // Act
    const { outcome, timing } = await streamOnce(tgi, 'tgi', {
      inputs: PROMPT,
      parameters: { max_new_tokens: 8 },
      stream: true,
    });

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(timing).toMatchObject({
      outputTokens: 8,
      outputTokenSource: 'server',
      countedTokens: 8,
      inputTokens: 10,
      finishReason: 'length',
    });
    expect(timing.ttftUs).toBeGreaterThan(0);
    expect(timing.interTokenUs).toHaveLength(7);
    // Every token came in its own piece, after a model step: no gap is zero.
    expect(timing.interTokenUs.every((gap) => gap > 0)).toBe(true);
  });

  it('streams the OpenAI chat completion with its final usage chunk, read by the OpenAI parser', async () => {
    // Act
    const { outcome, timing } = await streamOnce(tgi, 'openai', {
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 6,
      seed: 5,
      stream: true,
      stream_options: { include_usage: true },
    });

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(timing).toMatchObject({ outputTokens: 6, outputTokenSource: 'server', inputTokens: 10 });
    expect(timing.interTokenUs.every((gap) => gap > 0)).toBe(true);
  });

  it('ends a sampled chat completion early when it draws the end token, and its usage chunk counts what was generated', async () => {
    // Prepare: at the chat API's default temperature (1) this seed draws the end token third.
    const endsEarly = {
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 8,
      seed: 799_295_374,
      stream: true,
      stream_options: { include_usage: true },
    };

    // Act
    const { outcome, timing } = await streamOnce(tgi, 'openai', endsEarly);

    // Assert: two text chunks, then finish_reason "stop"; the usage counts the end token too (the
    // server's generated-token count includes it), and the load test takes the server's count.
    expect(outcome).toEqual({ kind: 'ok' });
    expect(timing).toMatchObject({
      outputTokens: 3,
      outputTokenSource: 'server',
      countedTokens: 2,
      finishReason: 'stop',
    });
  });

  it('streams LMI JSON Lines when the server is set to that format', async () => {
    // Act
    const { outcome, timing } = await streamOnce(lmi, 'lmi-jsonlines', {
      inputs: PROMPT,
      parameters: { max_new_tokens: 5 },
      stream: true,
    });

    // Assert
    expect(outcome).toEqual({ kind: 'ok' });
    expect(timing).toMatchObject({ outputTokens: 5, outputTokenSource: 'server', countedTokens: 5 });
  });

  it('honours max_new_tokens in a plain answer, in the TGI list shape', async () => {
    // Act
    const answer = await invoke(tgi, { inputs: PROMPT, parameters: { max_new_tokens: 5, details: true } });

    // Assert
    expect(answer.status).toBe(200);
    const [first] = answer.body as [{ generated_text: string; details: unknown }];
    expect(first.details).toEqual({ finish_reason: 'length', generated_tokens: 5, input_length: 10 });
    expect(first.generated_text.trim().split(' ')).toHaveLength(5);
  });

  it('decodes the same text for the same prompt, greedily or sampled with the same seed', async () => {
    // Prepare
    const greedy = { inputs: PROMPT, parameters: { max_new_tokens: 6 } };
    const sampled = { inputs: PROMPT, parameters: { max_new_tokens: 6, do_sample: true, seed: 42 } };

    // Act
    const answers = await Promise.all([greedy, greedy, sampled, sampled].map((body) => invoke(lmi, body)));

    // Assert
    const texts = answers.map((answer) => (answer.body as { generated_text: string }).generated_text);
    expect(texts[1]).toBe(texts[0]);
    expect(texts[3]).toBe(texts[2]);
    expect(texts[2]).not.toBe(texts[0]);
  });

  it('decodes concurrent sequences in one step up to MODEL_SERVER_MAX_BATCH_SIZE, one at a time at 1', async () => {
    // Prepare
    const body = { inputs: PROMPT, parameters: { max_new_tokens: 4 } };

    // Act
    await Promise.all([tgi, tgi, tgi, lmi, lmi, lmi].map((server) => invoke(server, body)));

    // Assert
    expect(tgi.metrics().largestBatch).toBe(3);
    expect(lmi.metrics().largestBatch).toBe(1);
  });

  it('stops decoding a stream whose client went away', async () => {
    // Prepare: the client aborts as soon as the first piece of the body arrives.
    const transport = createHttpStreamTransport({
      origin: tgi.url,
      connections: 1,
      requestTimeoutMs: 10_000,
    });
    const controller = new AbortController();
    const before = tgi.metrics().tokensGenerated;

    // Act
    const outcome = await transport.invokeStream(
      json({ inputs: PROMPT, parameters: { max_new_tokens: 500 }, stream: true }),
      controller.signal,
      () => {
        controller.abort();
      },
    );
    await transport.close();
    while (tgi.metrics().active > 0) await sleep(5);

    // Assert
    expect(outcome.kind).toBe('timeout');
    expect(tgi.metrics().tokensGenerated - before).toBeLessThan(50);
  });

  it('stops a plain generation whose client went away', async () => {
    // Prepare
    const controller = new AbortController();
    const before = tgi.metrics().tokensGenerated;
    const request = fetch(`${tgi.url}/invocations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: PROMPT, parameters: { max_new_tokens: 500 } }),
      signal: controller.signal,
    });

    // Act
    while (tgi.metrics().active === 0) await sleep(2);
    controller.abort();
    await request.catch(() => undefined);
    while (tgi.metrics().active > 0) await sleep(5);

    // Assert
    expect(tgi.metrics().tokensGenerated - before).toBeLessThan(100);
  });

  it('refuses a bad request with 400 and a message naming each bad field', async () => {
    // Act
    const answer = await invoke(tgi, { inputs: PROMPT, parameters: { max_new_tokens: 0, seed: -1 } });

    // Assert
    expect(answer).toEqual({
      status: 400,
      body: {
        error:
          'Invalid generation request: parameters.max_new_tokens: got 0, expected an integer from 1 to 1024; ' +
          'parameters.seed: got -1, expected a non-negative integer',
      },
    });
  });
});

describe('isGenerativeModelFile', () => {
  it('tells the generative model from the example CNN by its inputs', async () => {
    // Prepare
    const cnnPath = join(dir, 'cnn', 'model.onnx');
    await writeExampleModel(cnnPath);

    // Act / Assert
    expect(await isGenerativeModelFile(modelPath)).toBe(true);
    expect(await isGenerativeModelFile(cnnPath)).toBe(false);
  });
});

describe('readGenerateFormatFromEnv', () => {
  it('reads the format, TGI when unset', () => {
    // Act / Assert
    expect(readGenerateFormatFromEnv({ MODEL_SERVER_STREAM_FORMAT: 'lmi-sse' })).toBe('lmi-sse');
    expect(readGenerateFormatFromEnv({})).toBe('tgi');
  });

  it('refuses an unknown format, naming the variable', () => {
    // Act / Assert
    expect(() => readGenerateFormatFromEnv({ MODEL_SERVER_STREAM_FORMAT: 'vllm' })).toThrow(
      'Invalid model server configuration: MODEL_SERVER_STREAM_FORMAT: got "vllm", expected tgi, lmi-jsonlines, lmi-sse',
    );
  });
});
