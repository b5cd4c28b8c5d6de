import { describe, expect, it } from '@jest/globals';
import type { RunLoadWorkerEvent } from '../../../../core/contracts/optimization-state.js';
import type { WorkerResult } from '../../../../core/load-test/index.js';
import type { TransportFactory } from '../../../../core/ports/index.js';
import { runLoadWorker } from '../../../../core/steps/optimization/run-load-worker.js';
import { stubTransports } from '../../../support/fake-sagemaker.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { SAMPLE_LOAD_PLAN, SAMPLE_SLA } from '../../../../bench/fixtures/sample-report.js';

const PROMPTS = 's3://user-models/llm/prompts.jsonl';
const FILE = ['{"prompt": "hi"}', '{"prompt": "hello"}', '{"prompt": "a much longer prompt"}'].join('\n');

const EVENT: RunLoadWorkerEvent = {
  plan: {
    runId: 'nightly-2026-11-24',
    artifactsBucket: 'mso-artifacts',
    payloads: [
      {
        uri: PROMPTS,
        contentType: 'application/json',
        weight: 2,
        sizeBytes: 200,
        bucket: { name: 'short', maxChars: 5 },
      },
      { uri: PROMPTS, contentType: 'application/json', weight: 1, sizeBytes: 120, bucket: { name: 'long' } },
    ],
    prompts: {
      uri: PROMPTS,
      format: 'tgi',
      stream: false,
      generation: { maxNewTokens: 4, temperature: 0 },
      buckets: [{ name: 'short', maxChars: 5 }, { name: 'long' }],
    },
    // Up to 2 s, ended at 120 requests: on a starved CPU still enough draws to reach every prompt
    // (a 0.3 s window made as few as ten under load, which could miss one), on a quiet one 0.1 s.
    loadPlan: {
      ...SAMPLE_LOAD_PLAN,
      steps: [2],
      workers: 1,
      warmupSeconds: 0,
      stepDurationSeconds: 2,
      maxRequestsPerStep: 120,
    },
    sla: SAMPLE_SLA,
  },
  candidateId: 'c1',
  deployment: { endpointName: 'mso-nightly-2026-11-24-ab12cd34-ep-c1' },
  workerIndex: 0,
};

function recordingTransports(sent: Set<string>): TransportFactory {
  const inner = stubTransports(() => ({ latencyMs: 2 }));
  return (options) => {
    const transport = inner(options);
    return {
      invoke: (request, signal) => {
        sent.add(new TextDecoder().decode(request.body));
        return transport.invoke(request, signal);
      },
    };
  };
}

describe('runLoadWorker with a prompt set', () => {
  it('sends every prompt of the set, each built by its template', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(PROMPTS, FILE);
    const sent = new Set<string>();

    // Act
    await runLoadWorker(EVENT, { store, openTransport: recordingTransports(sent), logger: silentLogger });

    // Assert
    const body = (inputs: string) =>
      JSON.stringify({
        inputs,
        parameters: { max_new_tokens: 4, do_sample: false, details: true },
        stream: false,
      });
    expect([...sent].sort()).toEqual([body('a much longer prompt'), body('hello'), body('hi')]);
  });

  it("stores each bucket's figures as a payload's in the worker's result", async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(PROMPTS, FILE);

    // Act
    const outcome = await runLoadWorker(EVENT, {
      store,
      openTransport: stubTransports(() => ({ latencyMs: 2 })),
      logger: silentLogger,
    });

    // Assert
    const stored = store.objects.get(outcome.resultUri);
    const result = JSON.parse(new TextDecoder().decode(stored?.body)) as WorkerResult;
    const [step] = result.steps;
    expect(step?.payloads?.map((payload) => payload.requests > 0)).toEqual([true, true]);
    expect((step?.payloads ?? []).reduce((sum, payload) => sum + payload.requests, 0)).toBe(step?.requests);
  });

  it('refuses a prompt set that changed since planning, before sending a request', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(
      PROMPTS,
      '{"prompt": "hi"}\n{"prompt": "a much longer prompt"}',
    );
    const sent = new Set<string>();

    // Act
    const failure = runLoadWorker(EVENT, {
      store,
      openTransport: recordingTransports(sent),
      logger: silentLogger,
    });

    // Assert
    await expect(failure).rejects.toThrow(
      `Invalid run input: prompts.uri: got ${PROMPTS}, changed since "Validate and plan" read it (bucket "short" holds 1 prompt(s), not 2), expected the prompt set as it was planned: leave the file unchanged while its run runs, or start a new run`,
    );
    expect(sent.size).toBe(0);
  });
});
