import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses, type RunPlan } from '../../handlers/contracts/optimization-state.js';
import type { EndpointMetricsReader } from '../../handlers/ports.js';
import { recommend } from '../../handlers/recommend.js';
import { MemoryObjectStore, silentLogger } from '../support/memory-object-store.js';
import { loadTestResult, plannedCandidate, runPlan, stepResult } from './report/support/sample-report.js';

const PREFIX = 's3://mso-artifacts/runs/nightly-2026-11-22/';
const RESULT_URI = `${PREFIX}load-tests/c1/result.json`;
const CANDIDATE = plannedCandidate('c1', 'ml.c5.xlarge', 0.204);
const GENERATED_AT = new Date('2026-11-22T11:00:00Z');

/** A store holding c1's load-test result: 1,200 requests/s within the SLA. */
function storeWithResult(): MemoryObjectStore {
  const result = loadTestResult([stepResult({ load: 1, tps: 1200, medianMs: 5, tailMs: 2 })]);
  return new MemoryObjectStore().seed(RESULT_URI, JSON.stringify(result));
}

function recommendFor(plan: RunPlan, store: MemoryObjectStore, metrics?: EndpointMetricsReader) {
  return recommend(
    {
      plan,
      candidates: [
        {
          candidateId: 'c1',
          status: CandidateStatuses.measured,
          resultUri: RESULT_URI,
          sustainableTps: 1200,
        },
      ],
    },
    {
      store,
      logger: silentLogger,
      measuredLocally: true,
      now: () => GENERATED_AT,
      ...(metrics === undefined ? {} : { metrics }),
    },
  );
}

describe('recommend', () => {
  it('writes report.json, report.md and report.html under the run prefix and returns a summary pointing at them', async () => {
    // Arrange
    const store = storeWithResult();

    // Act
    const summary = await recommendFor(runPlan([CANDIDATE]), store);

    // Assert
    const report = {
      json: `${PREFIX}report.json`,
      markdown: `${PREFIX}report.md`,
      html: `${PREFIX}report.html`,
    };
    expect(summary.report).toEqual(report);
    expect(summary.recommendation?.candidateId).toBe('c1');
    expect([...store.objects.keys()].sort()).toEqual(
      [RESULT_URI, report.json, report.html, report.markdown].sort(),
    );
    expect(store.objects.get(report.html)?.contentType).toBe('text/html');
  });

  it('names the recommended endpoint for clean-up to keep when the policy is keep-recommended', async () => {
    // Act
    const summary = await recommendFor(
      runPlan([CANDIDATE], { cleanupPolicy: 'keep-recommended' }),
      storeWithResult(),
    );

    // Assert
    expect(summary.keep).toEqual({
      endpointName: 'mso-run-ab12cd34-ep-c1',
      endpointConfigName: 'mso-run-ab12cd34-ec-c1',
      modelName: 'mso-run-ab12cd34-m-c1',
    });
  });

  it("reads the endpoint's metrics for the variant and window the test ran on", async () => {
    // Arrange
    const asked: unknown[] = [];
    const metrics: EndpointMetricsReader = {
      read: (query) => {
        asked.push(query);
        return Promise.resolve(undefined);
      },
    };

    // Act
    await recommendFor(runPlan([CANDIDATE]), storeWithResult(), metrics);

    // Assert
    expect(asked).toEqual([
      {
        endpointName: 'mso-run-ab12cd34-ep-c1',
        variantName: 'AllTraffic',
        startEpochMs: Date.parse('2026-11-22T10:00:00Z'),
        endEpochMs: Date.parse('2026-11-22T10:00:35Z'),
      },
    ]);
  });
});
