import { describe, expect, it } from '@jest/globals';
import type { RunLoadWorkerEvent } from '../../../../core/contracts/optimization-state.js';
import type { WorkerResult } from '../../../../core/load-test/index.js';
import type { TransportFactory } from '../../../../core/ports/index.js';
import { runLoadWorker } from '../../../../core/steps/optimization/run-load-worker.js';
import { stubTransports } from '../../../support/fake-sagemaker.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import { SAMPLE_LOAD_PLAN, SAMPLE_SLA } from '../../../../bench/fixtures/sample-report.js';

const SMALL = 's3://user-models/cnn/small.json';
const LARGE = 's3://user-models/cnn/large.npy';

const EVENT: RunLoadWorkerEvent = {
  plan: {
    runId: 'nightly-2026-11-22',
    artifactsBucket: 'mso-artifacts',
    payloads: [
      { uri: SMALL, contentType: 'application/json', weight: 3, sizeBytes: 2 },
      { uri: LARGE, contentType: 'application/x-npy', accept: 'application/json', weight: 1, sizeBytes: 4 },
    ],
    loadPlan: { ...SAMPLE_LOAD_PLAN, steps: [2], workers: 1, warmupSeconds: 0, stepDurationSeconds: 0.2 },
    sla: SAMPLE_SLA,
  },
  candidateId: 'c1',
  deployment: { endpointName: 'mso-nightly-2026-11-22-ab12cd34-ep-c1' },
  workerIndex: 0,
};

describe('runLoadWorker with a payload mix', () => {
  it('reads each payload once and sends each with its own content type', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(SMALL, '{}').seed(LARGE, 'NUMP');
    const reads: string[] = [];
    const getBytes = store.getBytes.bind(store);
    store.getBytes = (uri: string) => {
      reads.push(uri);
      return getBytes(uri);
    };
    const sent = new Set<string>();
    const inner = stubTransports(() => ({ latencyMs: 2 }));
    const openTransport: TransportFactory = (options) => {
      const transport = inner(options);
      return {
        invoke: (request, signal) => {
          sent.add(
            `${new TextDecoder().decode(request.body)} ${request.contentType} ${request.accept ?? '-'}`,
          );
          return transport.invoke(request, signal);
        },
      };
    };

    // Act
    await runLoadWorker(EVENT, { store, openTransport, logger: silentLogger });

    // Assert
    expect(reads).toEqual([SMALL, LARGE]);
    expect([...sent].sort()).toEqual(['NUMP application/x-npy application/json', '{} application/json -']);
  });

  it("stores each payload's figures in the worker's result", async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(SMALL, '{}').seed(LARGE, 'NUMP');

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
    expect(step?.payloads?.length).toBe(2);
    expect((step?.payloads ?? []).reduce((sum, payload) => sum + payload.requests, 0)).toBe(step?.requests);
  });
});
