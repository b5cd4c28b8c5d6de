/**
 * "Recommend" on measured candidates of several instances: how each test's requests spread over
 * the instances, read with the proof's reader and code path (report/read-instance-spread.ts), and a
 * routing strategy that had nothing to route between.
 */
import { describe, expect, it } from '@jest/globals';
import {
  CandidateStatuses,
  type PlannedCandidate,
  type RunPlan,
} from '../../../../core/contracts/optimization-state.js';
import type { EndpointMetricsQuery, InvocationsPerInstanceReader } from '../../../../core/ports/index.js';
import { recommend } from '../../../../core/steps/optimization/recommend.js';
import type { Report } from '../../../../core/report/report.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../../bench/fixtures/sample-report.js';

const PREFIX = 's3://mso-artifacts/runs/nightly-2026-11-22/';
const RESULT_URI = `${PREFIX}load-tests/c1/result.json`;
const LOCAL_NOTE = 'counted by the local routing front for each instance process, warm-up included';

function storeWithResult(): MemoryObjectStore {
  const result = loadTestResult([stepResult({ load: 1, tps: 1200, medianMs: 5, tailMs: 2 })]);
  return new MemoryObjectStore().seed(RESULT_URI, JSON.stringify(result));
}

async function recommendWith(
  candidate: PlannedCandidate,
  invocations: InvocationsPerInstanceReader,
  store = storeWithResult(),
): Promise<{ report: Report; markdown: string }> {
  const plan: RunPlan = runPlan([candidate]);
  await recommend(
    {
      plan,
      candidates: [
        {
          candidateId: candidate.id,
          status: CandidateStatuses.measured,
          resultUri: RESULT_URI,
          sustainableTps: 1200,
        },
      ],
    },
    { store, logger: silentLogger, measuredLocally: true, now: () => new Date(0), invocations },
  );
  const text = (file: string): string =>
    new TextDecoder().decode(store.objects.get(`${PREFIX}${file}`)?.body);
  return { report: JSON.parse(text('report.json')) as Report, markdown: text('report.md') };
}

/** A reader that records its queries and answers one count per instance, as the local front does. */
function localReader(
  counts: readonly number[],
  asked: EndpointMetricsQuery[] = [],
): InvocationsPerInstanceReader {
  return {
    read: (query) => {
      asked.push(query);
      return Promise.resolve({
        scope: 'instance',
        instances: counts.map((invocations, index) => ({ instance: `instance-${index + 1}`, invocations })),
        note: LOCAL_NOTE,
      });
    },
  };
}

describe('recommend: per-instance figures of a multi-instance candidate', () => {
  it('reads the spread over the candidate’s test window and puts it, with max/min, on the candidate', async () => {
    // Prepare
    const asked: EndpointMetricsQuery[] = [];
    const candidate = plannedCandidate('c1', 'ml.c5.large', 0.102, { initialInstanceCount: 2 });

    // Act
    const { report } = await recommendWith(candidate, localReader([600, 400], asked));

    // Assert
    expect(asked).toEqual([
      {
        endpointName: 'mso-run-ab12cd34-ep-c1',
        variantName: 'AllTraffic',
        startEpochMs: Date.parse('2026-11-22T10:00:00Z'),
        endEpochMs: Date.parse('2026-11-22T10:00:35Z'),
      },
    ]);
    expect(report.candidates[0]).toMatchObject({
      perInstance: [
        { instance: 'instance-1', invocations: 600 },
        { instance: 'instance-2', invocations: 400 },
      ],
      perInstanceImbalance: 1.5,
      perInstanceNote: LOCAL_NOTE,
    });
  });

  it('writes the spread as a line of the candidate’s facts in report.md', async () => {
    // Prepare
    const candidate = plannedCandidate('c1', 'ml.c5.large', 0.102, { initialInstanceCount: 2 });

    // Act
    const { markdown } = await recommendWith(candidate, localReader([600, 400]));

    // Assert
    expect(markdown).toContain(
      `- Per instance: instance-1 600, instance-2 400 invocations (max/min 1.5; ${LOCAL_NOTE})`,
    );
  });

  it('gives the variant’s figure on AWS with the proof’s note, and no max/min it cannot know', async () => {
    // Prepare
    const note =
      'CloudWatch AWS/SageMaker InvocationsPerInstance (Sum over the test’s whole minutes): per variant';
    const reader: InvocationsPerInstanceReader = {
      read: () =>
        Promise.resolve({
          scope: 'variant',
          instances: [{ instance: 'each instance of variant AllTraffic (average)', invocations: 500 }],
          note,
        }),
    };
    const candidate = plannedCandidate('c1', 'ml.c5.large', 0.102, { initialInstanceCount: 2 });

    // Act
    const { report } = await recommendWith(candidate, reader);

    // Assert
    const reported = report.candidates[0];
    expect(reported?.perInstance).toEqual([
      { instance: 'each instance of variant AllTraffic (average)', invocations: 500 },
    ]);
    expect(reported?.perInstanceNote).toBe(note);
    expect(reported?.perInstanceImbalance).toBeUndefined();
  });

  it('keeps the report when the reader fails, with why in the note', async () => {
    // Prepare
    const reader: InvocationsPerInstanceReader = { read: () => Promise.reject(new Error('throttled')) };
    const candidate = plannedCandidate('c1', 'ml.c5.large', 0.102, { initialInstanceCount: 2 });

    // Act
    const { report } = await recommendWith(candidate, reader);

    // Assert
    expect(report.candidates[0]?.perInstanceNote).toBe('unavailable (Error: throttled)');
  });

  it('reads nothing for a one-instance candidate: there is no spread', async () => {
    // Prepare
    const asked: EndpointMetricsQuery[] = [];

    // Act
    const { report } = await recommendWith(
      plannedCandidate('c1', 'ml.c5.large', 0.102),
      localReader([1], asked),
    );

    // Assert
    expect(asked).toEqual([]);
    expect(report.candidates[0]?.perInstance).toBeUndefined();
  });
});

describe('recommend: a candidate’s routing strategy', () => {
  it('says a strategy on one instance had no effect on the test, in report.json and report.md', async () => {
    // Prepare
    const candidate = plannedCandidate('c1', 'ml.c5.large', 0.102, {
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    });
    const routingNote =
      'routingStrategy LEAST_OUTSTANDING_REQUESTS had no effect on this test: one instance has nothing to ' +
      'route between; it applies to a deployment of several instances (the count for the target, the proof)';

    // Act
    const { report, markdown } = await recommendWith(candidate, localReader([]));

    // Assert
    expect(report.candidates[0]).toMatchObject({
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
      routingNote,
    });
    expect(markdown).toContain(`- Routing: LEAST_OUTSTANDING_REQUESTS (${routingNote})`);
  });

  it('names the strategy of a candidate of two instances without a note', async () => {
    // Prepare
    const candidate = plannedCandidate('c1', 'ml.c5.large', 0.102, {
      initialInstanceCount: 2,
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    });

    // Act
    const { report, markdown } = await recommendWith(candidate, localReader([5, 5]));

    // Assert
    expect(report.candidates[0]?.routingStrategy).toBe('LEAST_OUTSTANDING_REQUESTS');
    expect(report.candidates[0]?.routingNote).toBeUndefined();
    expect(markdown).toContain('- Routing: LEAST_OUTSTANDING_REQUESTS\n');
  });
});
