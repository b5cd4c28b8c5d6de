import { describe, expect, it } from '@jest/globals';
import {
  validateAndPlan,
  type ValidateAndPlanDeps,
} from '../../../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { planRefusal } from './support/plan-refusal.js';

const MODEL_URI = 's3://user-models/llm/model.onnx';
const PROMPTS = 's3://user-models/llm/prompts.jsonl';
const FILE = ['{"prompt": "hi"}', '{"prompt": "hello"}', '{"prompt": "a much longer prompt"}'].join('\n');

function input(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: { artifactUri: MODEL_URI, framework: 'onnx' },
    prompts: {
      uri: PROMPTS,
      generation: { maxNewTokens: 32 },
      buckets: [{ name: 'short', maxChars: 5 }, { name: 'medium', maxChars: 10 }, { name: 'long' }],
    },
    candidates: [{ instanceType: 'ml.g5.xlarge' }],
    loadPlan: {
      steps: [1, 4],
      warmupSeconds: 5,
      stepDurationSeconds: 60,
      response: { mode: 'stream', format: 'tgi' },
    },
    sla: { ttftP95Ms: 500 },
    ...overrides,
  };
}

function deps(
  store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PROMPTS, FILE),
): ValidateAndPlanDeps {
  return { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger };
}

describe('validateAndPlan: prompt sets', () => {
  it('plans the prompt set and one payload per bucket that holds prompts, weighted by its prompts', async () => {
    // Act
    const plan = await validateAndPlan({ runId: 'run-1', input: input() }, deps());

    // Assert
    expect(plan.prompts).toEqual({
      uri: PROMPTS,
      format: 'tgi',
      stream: true,
      generation: { maxNewTokens: 32, temperature: 0 },
      buckets: [{ name: 'short', maxChars: 5 }, { name: 'medium', maxChars: 10 }, { name: 'long' }],
    });
    const size = (...prompts: string[]) =>
      prompts.reduce(
        (sum, inputs) =>
          sum +
          JSON.stringify({
            inputs,
            parameters: { max_new_tokens: 32, do_sample: false, details: true },
            stream: true,
          }).length,
        0,
      );
    expect(plan.payloads).toEqual([
      {
        uri: PROMPTS,
        contentType: 'application/json',
        weight: 2,
        sizeBytes: size('hi', 'hello'),
        bucket: { name: 'short', maxChars: 5 },
      },
      {
        uri: PROMPTS,
        contentType: 'application/json',
        weight: 1,
        sizeBytes: size('a much longer prompt'),
        bucket: { name: 'long' },
      },
    ]);
  });

  it('refuses a bad line before anything is created, naming its number and its problem', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(MODEL_URI, 'weights')
      .seed(PROMPTS, '{"prompt": "hi"}\n{"input": "hello"}\n');

    // Act
    const error = await planRefusal(input(), deps(store));

    // Assert
    expect(error.message).toBe(
      'Invalid run input: prompts.uri line 2: got {"input": "hello"} (the key "input" is not "prompt" or "messages"), ' +
        'expected one JSON object a line: {"prompt": "…"} or {"messages": [{"role": "user", "content": "…"}]}',
    );
    expect([...store.objects.keys()].sort()).toEqual([MODEL_URI, PROMPTS]);
  });

  it('refuses a prompt set missing from the store, at prompts.uri', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights');

    // Act
    const error = await planRefusal(input(), deps(store));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'prompts.uri',
        given: `"${PROMPTS}"`,
        expected: 'an object that exists and that the workflow can read',
      },
    ]);
  });

  it('refuses a prompt set over what a load worker holds, without reading it', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL_URI, 'weights').seed(PROMPTS, FILE);
    store.head = (uri: string) => Promise.resolve({ sizeBytes: uri === PROMPTS ? 16 * 1024 * 1024 + 1 : 7 });
    const reads: string[] = [];
    store.getBytes = (uri: string) => {
      reads.push(uri);
      return Promise.resolve(new Uint8Array());
    };

    // Act
    const error = await planRefusal(input(), deps(store));

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'prompts.uri',
        given: `"${PROMPTS}" (16777217 bytes)`,
        expected:
          'at most 16777216 bytes (what each load worker holds of a prompt set: a sample of the prompts)',
      },
    ]);
    expect(reads).toEqual([]);
  });
});
