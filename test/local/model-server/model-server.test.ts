import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';

import { EXAMPLE_MODEL_SAMPLE_SIZE, writeExampleModel } from '../../../local/example-model/example-model.js';
import { UnsupportedModelError } from '../../../local/model-server/errors.js';
import { startModelServer } from '../../../local/model-server/model-server.js';
import type { ModelServerHandle, StartModelServerOptions } from '../../../local/model-server/model-server.js';
import { sampleInput } from './run-model.js';

let modelDir: string;
const servers: ModelServerHandle[] = [];

beforeAll(async () => {
  modelDir = await mkdtemp(join(tmpdir(), 'model-server-'));
  await writeExampleModel(join(modelDir, 'model.onnx'));
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await rm(modelDir, { recursive: true, force: true });
});

async function start(options: Partial<StartModelServerOptions> = {}): Promise<ModelServerHandle> {
  const server = await startModelServer({
    modelDir,
    port: 0,
    host: '127.0.0.1',
    workers: 1,
    intraOpThreads: 1,
    ...options,
  });
  servers.push(server);
  return server;
}

/** `count` samples of the example model as nested arrays [count][3][32][32]. */
function nestedSamples(flat: Float32Array, count: number): number[][][][] {
  const values = Array.from(flat);
  return Array.from({ length: count }, (_, n) =>
    Array.from({ length: 3 }, (_, c) =>
      Array.from({ length: 32 }, (_, h) => {
        const offset = n * EXAMPLE_MODEL_SAMPLE_SIZE + c * 1024 + h * 32;
        return values.slice(offset, offset + 32);
      }),
    ),
  );
}

function rawBody(flat: Float32Array): Buffer {
  const body = Buffer.alloc(flat.length * 4);
  flat.forEach((value, index) => body.writeFloatLE(value, index * 4));
  return body;
}

function invoke(
  server: ModelServerHandle,
  body: string | Buffer,
  headers: Record<string, string>,
): Promise<Response> {
  return fetch(`${server.url}/invocations`, { method: 'POST', body, headers });
}

/** Resolves once the server is running a batch (its only worker is busy). */
async function untilBatchRuns(server: ModelServerHandle): Promise<void> {
  while (server.metrics().batchesInFlight === 0) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const JSON_HEADERS = { 'Content-Type': 'application/json' };
const RAW_HEADERS = { 'Content-Type': 'application/octet-stream' };

describe('model server', () => {
  let server: ModelServerHandle;

  beforeAll(async () => {
    server = await start({ workers: 2 });
  });

  it('answers /ping with 200 once the model is loaded', async () => {
    // Act
    const response = await fetch(`${server.url}/ping`);

    // Assert
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'Healthy' });
  });

  it('gives the same predictions for a JSON and a raw float32 payload', async () => {
    // Prepare
    const input = sampleInput(2, EXAMPLE_MODEL_SAMPLE_SIZE);

    // Act
    const json = await invoke(server, JSON.stringify({ instances: nestedSamples(input, 2) }), JSON_HEADERS);
    const raw = await invoke(server, rawBody(input), RAW_HEADERS);

    // Assert
    expect(json.status).toBe(200);
    expect(raw.status).toBe(200);
    const fromJson = (await json.json()) as { predictions: number[][] };
    const fromRaw = (await raw.json()) as { predictions: number[][] };
    expect(fromJson.predictions).toHaveLength(2);
    expect(fromJson.predictions[0]).toHaveLength(10);
    expect(fromJson.predictions.flat().every(Number.isFinite)).toBe(true);
    expect(fromRaw).toEqual(fromJson);
  });

  it('answers raw float32 with the output shape when Accept asks for it', async () => {
    // Prepare
    const input = sampleInput(1, EXAMPLE_MODEL_SAMPLE_SIZE);
    const json = (await (
      await invoke(server, JSON.stringify({ inputs: nestedSamples(input, 1)[0] }), JSON_HEADERS)
    ).json()) as { predictions: number[][] };

    // Act
    const response = await invoke(server, rawBody(input), {
      ...RAW_HEADERS,
      Accept: 'application/octet-stream',
    });

    // Assert
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('x-output-shape')).toBe('1,10');
    expect(response.headers.get('x-output-name')).toBe('logits');
    const bytes = Buffer.from(await response.arrayBuffer());
    const values = Array.from({ length: 10 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(values).toEqual(json.predictions[0]);
  });

  it('fails with 400 naming the expected shape when a JSON sample has the wrong shape', async () => {
    // Act
    const response = await invoke(server, JSON.stringify({ inputs: [[[1, 2, 3]]] }), JSON_HEADERS);

    // Assert
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error:
        'inputs: got an array of 1, expected an array of 3 (model input "input" takes samples of shape [3, 32, 32])',
    });
  });

  it('fails with 400 when a raw payload is not a whole number of samples', async () => {
    // Act
    const response = await invoke(server, Buffer.alloc(100), RAW_HEADERS);

    // Assert
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe(
      'Raw body has 100 bytes: expected a positive multiple of 12288 bytes (N samples of shape [3, 32, 32] little-endian float32)',
    );
  });

  it('fails with 415 for an unsupported content type', async () => {
    // Act
    const response = await invoke(server, 'a,b,c', { 'Content-Type': 'text/csv' });

    // Assert
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: string }).error).toContain('got "text/csv"');
  });

  it('fails with 406 when the requested response type is unsupported', async () => {
    // Act
    const response = await invoke(server, rawBody(sampleInput(1, EXAMPLE_MODEL_SAMPLE_SIZE)), {
      ...RAW_HEADERS,
      Accept: 'text/csv',
    });

    // Assert
    expect(response.status).toBe(406);
  });

  it('fails with 404 for an unknown path and 405 for a wrong method', async () => {
    // Act
    const unknown = await fetch(`${server.url}/predict`, { method: 'POST' });
    const wrongMethod = await fetch(`${server.url}/invocations`);

    // Assert
    expect(unknown.status).toBe(404);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect(await wrongMethod.json()).toEqual({ error: 'GET /invocations is not allowed: expected POST' });
  });

  it('counts responses by status code in /metrics', async () => {
    // Act
    const response = await fetch(`${server.url}/metrics`);

    // Assert
    const metrics = (await response.json()) as { workers: number; responses: Record<string, number> };
    expect(metrics.workers).toBe(2);
    expect(metrics.responses['400']).toBeGreaterThanOrEqual(2);
    expect(metrics.responses['415']).toBe(1);
  });
});

describe('model server with dynamic batching', () => {
  it('combines concurrent requests into one model run and returns each its own predictions', async () => {
    // Prepare
    const unbatched = await start();
    // The delay is long enough for the four requests to arrive on a busy machine.
    const batching = await start({ maxBatchSize: 8, maxBatchDelayMs: 300 });
    const inputs = [0, 1, 2, 3].map((phase) => sampleInput(1, EXAMPLE_MODEL_SAMPLE_SIZE, phase));
    const expected: unknown[] = [];
    for (const input of inputs) {
      expected.push(
        ((await (await invoke(unbatched, rawBody(input), RAW_HEADERS)).json()) as { predictions: number[][] })
          .predictions[0],
      );
    }

    // Act
    const responses = await Promise.all(inputs.map((input) => invoke(batching, rawBody(input), RAW_HEADERS)));

    // Assert
    const predictions = await Promise.all(
      responses.map(
        async (response) => ((await response.json()) as { predictions: number[][] }).predictions[0] ?? [],
      ),
    );
    const metrics = (await (await fetch(`${batching.url}/metrics`)).json()) as Record<string, unknown>;
    expect(metrics).toMatchObject({ batchesRun: 1, samplesInferred: 4, batchSizes: { '4': 1 } });
    predictions.forEach((row, index) => {
      const want = expected[index] as number[];
      row.forEach((value, j) => {
        expect(value).toBeCloseTo(want[j] ?? Number.NaN, 4);
      });
    });
  });
});

describe('model server backpressure', () => {
  it('answers 503 when its queue is full', async () => {
    // Prepare: one worker kept busy by a large request, room for one waiting request.
    const server = await start({ maxQueue: 1 });
    const busy = invoke(server, rawBody(sampleInput(64, EXAMPLE_MODEL_SAMPLE_SIZE)), RAW_HEADERS);
    await untilBatchRuns(server);
    const small = rawBody(sampleInput(1, EXAMPLE_MODEL_SAMPLE_SIZE));

    // Act
    const responses = await Promise.all([1, 2, 3].map(() => invoke(server, small, RAW_HEADERS)));

    // Assert
    expect((await busy).status).toBe(200);
    expect(responses.map((response) => response.status).sort()).toEqual([200, 503, 503]);
    const rejected = responses.find((response) => response.status === 503);
    expect(((await rejected?.json()) as { error: string }).error).toBe(
      'The request queue is full (1 waiting, limit 1): retry later',
    );
    expect(server.metrics().rejectedQueueFull).toBe(2);
  });
});

describe('model server shutdown', () => {
  it('finishes in-flight requests before closing, then refuses connections', async () => {
    // Prepare
    const server = await start();
    const pending = invoke(server, rawBody(sampleInput(32, EXAMPLE_MODEL_SAMPLE_SIZE)), RAW_HEADERS);
    await untilBatchRuns(server);

    // Act
    await server.close();
    const metricsWhenClosed = server.metrics();
    const response = await pending;

    // Assert: the batch was in flight when close() was called; close() resolved only after it
    // was answered, and the whole answer reached the client.
    expect(metricsWhenClosed).toMatchObject({ requestsSucceeded: 1, batchesInFlight: 0 });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { predictions: unknown[] }).predictions).toHaveLength(32);
    await expect(fetch(`${server.url}/ping`)).rejects.toThrow();
  });
});

describe('startModelServer', () => {
  it('fails when the model cannot be loaded, naming the model file', async () => {
    // Prepare
    const dir = await mkdtemp(join(tmpdir(), 'bad-model-'));
    await writeFile(join(dir, 'model.onnx'), 'not a model');

    try {
      // Act
      const starting = start({ modelDir: dir });

      // Assert
      await expect(starting).rejects.toThrow(UnsupportedModelError);
      await expect(starting).rejects.toThrow(`Cannot serve model ${join(dir, 'model.onnx')}`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
