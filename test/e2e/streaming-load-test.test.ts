import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { aggregateWorkerResults } from '../../core/load-test/aggregate.js';
import { runLoadTest } from '../../core/load-test/engine.js';
import { connectionsPerWorker } from '../../core/load-test/plan.js';
import type { InvokeRequest } from '../../core/load-test/ports.js';
import { decodeHistogram } from '../../core/load-test/histogram.js';
import { createHttpStreamTransport } from '../../local/adapters/http-stream-transport.js';
import { writeGenerativeModel } from '../../local/example-model/generative-model.js';
import { startGenerativeServer } from '../../local/model-server/generative/generative-server.js';
import type { GenerativeServerHandle } from '../../local/model-server/generative/generative-server.js';
import type { StreamFormat } from '../../core/contracts/stream-format.js';
import { parseLoadPlan } from '../../core/contracts/load-plan.js';
import { parseSla } from '../../core/contracts/latency-sla.js';

/**
 * The engine's streaming mode against the real local generative model server over loopback: one
 * short closed-model step, every response read as a stream and timed per token. Real timers on a
 * shared machine: the assertions are bounds and identities, not measured values.
 */
let dir: string;
let server: GenerativeServerHandle;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'streaming-load-test-'));
  const modelPath = join(dir, 'model.onnx');
  await writeGenerativeModel(modelPath);
  server = await startGenerativeServer(modelPath, {
    modelDir: dir,
    port: 0,
    host: '127.0.0.1',
    intraOpThreads: 1,
    generateFormat: 'tgi',
    maxBatchSize: 2,
  });
});

afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const MAX_NEW_TOKENS = 8;
const PROMPT = 'which instance serves the model with the best latency';

const json = (body: unknown): InvokeRequest => ({
  body: new TextEncoder().encode(JSON.stringify(body)),
  contentType: 'application/json',
});

/** One step of 2 streams in flight for 1.5 s, read in `format`. */
async function runStreamingStep(format: StreamFormat, request: InvokeRequest) {
  const plan = parseLoadPlan({
    steps: [2],
    warmupSeconds: 0.3,
    stepDurationSeconds: 1.5,
    requestTimeoutMs: 65_000,
    response: { mode: 'stream', format },
  });
  const sla = parseSla({ ttftP95Ms: 60_000, itlP95Ms: 60_000 });
  const streamTransport = createHttpStreamTransport({
    origin: server.url,
    connections: connectionsPerWorker(plan),
    requestTimeoutMs: plan.requestTimeoutMs,
  });
  try {
    const worker = await runLoadTest({ plan, sla, streamTransport, request });
    return { worker, result: aggregateWorkerResults([worker], sla, plan) };
  } finally {
    await streamTransport.close();
  }
}

describe('runLoadTest in streaming mode against the local generative model server', () => {
  it('measures TTFT, ITL and the server-reported output tokens of TGI streams', async () => {
    // Act
    const { result } = await runStreamingStep(
      'tgi',
      json({ inputs: PROMPT, parameters: { max_new_tokens: MAX_NEW_TOKENS }, stream: true }),
    );

    // Assert
    const step = result.steps[0];
    const stream = step?.stream;
    expect({
      stopped: result.stoppedBecause,
      errors: step?.errors,
      meetsSla: step?.meetsSla,
      format: stream?.format,
      source: stream?.outputTokenSource,
      perRequest: stream?.outputTokensPerRequest,
      withoutToken: stream?.withoutToken,
    }).toEqual({
      stopped: 'completed',
      errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
      meetsSla: true,
      format: 'tgi',
      source: 'server',
      perRequest: MAX_NEW_TOKENS,
      withoutToken: 0,
    });
    const ok = step?.requests ?? 0;
    expect(ok).toBeGreaterThanOrEqual(4);
    expect(stream?.outputTokens).toBe(ok * MAX_NEW_TOKENS);
    // One TTFT per request, one gap per token after the first.
    expect(decodeHistogram(stream?.ttftHistogram ?? '').totalCount).toBe(ok);
    expect(decodeHistogram(stream?.itlHistogram ?? '').totalCount).toBe(ok * (MAX_NEW_TOKENS - 1));
    // The first token comes after the start and before the end; every gap is positive and well
    // under a second (one decoding step of a small model is a few milliseconds).
    expect(stream?.ttftMs.p50).toBeGreaterThan(0);
    expect(stream?.ttftMs.p50).toBeLessThanOrEqual(step?.latencyMs.p50 ?? 0);
    expect(stream?.ttftMs.max).toBeLessThanOrEqual(step?.latencyMs.max ?? 0);
    expect(stream?.itlMs.p50).toBeGreaterThan(0);
    expect(stream?.itlMs.p99).toBeLessThan(1000);
    expect(stream?.outputTokensPerSecond).toBe(Math.round((step?.tps ?? 0) * MAX_NEW_TOKENS * 1000) / 1000);
    expect(stream?.outputTokensPerSecond).toBeGreaterThan(0);
  }, 60_000);

  it('reads the OpenAI chat-completion stream, its output tokens from the final usage chunk', async () => {
    // Act
    const { result } = await runStreamingStep(
      'openai',
      json({
        messages: [{ role: 'user', content: PROMPT }],
        max_tokens: MAX_NEW_TOKENS,
        // Greedy, as the TGI request above is by default: the chat API samples at temperature 1
        // unless told otherwise, and about one sampled completion in 2,000 draws the end token
        // before max_tokens (generative-server.test.ts), which the usage chunk then rightly counts.
        temperature: 0,
        stream: true,
        stream_options: { include_usage: true },
      }),
    );

    // Assert
    const step = result.steps[0];
    expect({
      errors: step?.errors,
      source: step?.stream?.outputTokenSource,
      perRequest: step?.stream?.outputTokensPerRequest,
    }).toEqual({
      errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
      source: 'server',
      perRequest: MAX_NEW_TOKENS,
    });
    expect(step?.stream?.ttftMs.p50).toBeGreaterThan(0);
    expect(step?.stream?.itlMs.p50).toBeGreaterThan(0);
  }, 60_000);
});
