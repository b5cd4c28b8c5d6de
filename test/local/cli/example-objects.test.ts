import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import {
  EXAMPLE_GENERATIVE_MODEL_URI,
  EXAMPLE_MODEL_URI,
  EXAMPLE_PAYLOAD_SET_URIS,
  EXAMPLE_PAYLOAD_URI,
  EXAMPLE_PROMPT_URI,
  EXAMPLE_PROMPTS_URI,
  seedExampleObjects,
} from '../../../local/cli/example-objects.js';
import { isGenerativeModelFile } from '../../../local/model-server/generative/generative-server.js';
import { preparePromptSet } from '../../../core/load-test/prompts/prompt-set.js';
import { MemoryObjectStore } from '../../support/memory-object-store.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('seedExampleObjects', () => {
  it('writes the example CNN’s eight-input payload set that examples/local-quality.json names, each input its own', async () => {
    // Prepare
    const store = new MemoryObjectStore();
    const input: unknown = JSON.parse(
      readFileSync(new URL('../../../examples/local-quality.json', import.meta.url), 'utf8'),
    );

    // Act
    const written = await seedExampleObjects(store, input);

    // Assert: the first input is the example payload; each is one [1, 3, 32, 32] float32 sample.
    expect(written).toEqual([EXAMPLE_MODEL_URI, ...EXAMPLE_PAYLOAD_SET_URIS]);
    const bodies = await Promise.all(EXAMPLE_PAYLOAD_SET_URIS.map((uri) => store.getBytes(uri)));
    expect(bodies.map((body) => body.byteLength)).toEqual(Array.from({ length: 8 }, () => 3 * 32 * 32 * 4));
    expect(new Set(bodies.map((body) => Buffer.from(body).toString('base64'))).size).toBe(8);
    await seedExampleObjects(store, { payload: { uri: EXAMPLE_PAYLOAD_URI } });
    expect(await store.getBytes(EXAMPLE_PAYLOAD_URI)).toEqual(bodies[0]);
  });

  it('writes the generative example’s model and a streamed TGI prompt when the input names them', async () => {
    // Prepare
    const store = new MemoryObjectStore();
    const input = {
      model: { artifactUri: EXAMPLE_GENERATIVE_MODEL_URI },
      payload: { uri: EXAMPLE_PROMPT_URI },
    };

    // Act
    const written = await seedExampleObjects(store, input);

    // Assert: only what the input names; the model is one the generative server decodes.
    expect(written).toEqual([EXAMPLE_GENERATIVE_MODEL_URI, EXAMPLE_PROMPT_URI]);
    expect(JSON.parse(new TextDecoder().decode(await store.getBytes(EXAMPLE_PROMPT_URI)))).toEqual({
      inputs: 'the model server reads the prompt and writes the next word',
      parameters: { max_new_tokens: 32, do_sample: false },
      stream: true,
    });
    const dir = await mkdtemp(join(tmpdir(), 'mso-example-lm-'));
    try {
      const path = join(dir, 'model.onnx');
      await writeFile(path, await store.getBytes(EXAMPLE_GENERATIVE_MODEL_URI));
      expect(await isGenerativeModelFile(path)).toBe(true);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect(await store.head(EXAMPLE_MODEL_URI)).toBeUndefined();
  });

  it('writes the example prompt set, eight short prompts and four long ones, every line a prompt', async () => {
    // Prepare
    const store = new MemoryObjectStore();

    // Act
    const written = await seedExampleObjects(store, { prompts: { uri: EXAMPLE_PROMPTS_URI } });

    // Assert: bucketed as examples/local-prompts.json buckets them.
    expect(written).toEqual([EXAMPLE_PROMPTS_URI]);
    const set = preparePromptSet(
      await store.getBytes(EXAMPLE_PROMPTS_URI),
      {
        format: 'tgi',
        stream: true,
        generation: { maxNewTokens: 16, temperature: 0 },
        buckets: [{ name: 'short', maxChars: 100 }, { name: 'long' }],
      },
      { field: 'prompts.uri', maxBodyBytes: { bytes: 6 * 1024 * 1024, limit: 'the real-time limit' } },
    );
    expect(set.issues).toEqual([]);
    expect(set.buckets.map((bucket) => [bucket.name, bucket.requests.length])).toEqual([
      ['short', 8],
      ['long', 4],
    ]);
  });
});
