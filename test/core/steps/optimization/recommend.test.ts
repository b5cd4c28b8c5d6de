import { describe, expect, it } from '@jest/globals';
import { CandidateStatuses, type RunPlan } from '../../../../core/contracts/optimization-state.js';
import type { EndpointMetricsReader, ObjectStore } from '../../../../core/ports/index.js';
import { recommend } from '../../../../core/steps/optimization/recommend.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';
import {
  loadTestResult,
  plannedCandidate,
  runPlan,
  stepResult,
} from '../../../../bench/fixtures/sample-report.js';

const PREFIX = 's3://mso-artifacts/runs/nightly-2026-11-22/';
const RESULT_URI = `${PREFIX}load-tests/c1/result.json`;
const CANDIDATE = plannedCandidate('c1', 'ml.c5.xlarge', 0.204);
const GENERATED_AT = new Date('2026-11-22T11:00:00Z');

/** A store holding c1's load-test result: 1,200 requests/s within the SLA. */
function storeWithResult(): MemoryObjectStore {
  const result = loadTestResult([stepResult({ load: 1, tps: 1200, medianMs: 5, tailMs: 2 })]);
  return new MemoryObjectStore().seed(RESULT_URI, JSON.stringify(result));
}

function recommendFor(
  plan: RunPlan,
  store: ObjectStore,
  metrics?: EndpointMetricsReader,
  localFileOf?: (uri: string, reportUri: string) => string | undefined,
) {
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
      ...(localFileOf === undefined ? {} : { localFileOf }),
    },
  );
}

function textOf(store: MemoryObjectStore, uri: string): string {
  return new TextDecoder().decode(store.objects.get(uri)?.body);
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

  it('shows a local run’s raw result as its file in report.md and report.html, and keeps the URI in report.json', async () => {
    // Prepare
    const store = storeWithResult();
    const asked: string[][] = [];
    const localFileOf = (uri: string, reportUri: string): string | undefined => {
      asked.push([uri, reportUri]);
      return uri.startsWith(PREFIX) ? uri.slice(PREFIX.length) : undefined;
    };

    // Act
    await recommendFor(runPlan([CANDIDATE]), store, undefined, localFileOf);

    // Assert
    expect(asked).toEqual([[RESULT_URI, `${PREFIX}report.json`]]);
    expect(textOf(store, `${PREFIX}report.md`)).toContain('- Raw result: load-tests/c1/result.json\n');
    expect(textOf(store, `${PREFIX}report.html`)).toContain('<li>Raw result: load-tests/c1/result.json</li>');
    const report = JSON.parse(textOf(store, `${PREFIX}report.json`)) as {
      candidates: { resultUri: string; resultFile: string }[];
    };
    expect(report.candidates.map((c) => [c.resultUri, c.resultFile])).toEqual([
      [RESULT_URI, 'load-tests/c1/result.json'],
    ]);
  });

  it('shows the raw result’s URI when no local file is given (AWS)', async () => {
    // Prepare
    const store = storeWithResult();

    // Act
    await recommendFor(runPlan([CANDIDATE]), store);

    // Assert
    expect(textOf(store, `${PREFIX}report.md`)).toContain(`- Raw result: ${RESULT_URI}\n`);
  });

  it('gives a run that names no model package a null comparison, and writes no baseline index', async () => {
    // Prepare
    const store = storeWithResult();

    // Act
    const summary = await recommendFor(runPlan([CANDIDATE]), store);

    // Assert
    expect(summary.comparison).toBeNull();
    expect([...store.objects.keys()].filter((uri) => uri.includes('/model-packages/'))).toEqual([]);
  });

  it('keeps the run’s result when the baseline index cannot be written', async () => {
    // Prepare
    const store = storeWithResult();
    const refusing: ObjectStore = {
      head: (uri) => store.head(uri),
      getBytes: (uri) => store.getBytes(uri),
      getFirstBytes: (uri, count) => store.getFirstBytes(uri, count),
      list: (prefixUri, limit) => store.list(prefixUri, limit),
      putBytes: (uri, body, contentType) =>
        uri.includes('/model-packages/')
          ? Promise.reject(new Error('AccessDenied'))
          : store.putBytes(uri, body, contentType),
    };
    const plan = runPlan([CANDIDATE], {
      modelPackage: {
        groupName: 'fraud',
        version: 1,
        arn: 'arn:aws:sagemaker:us-east-1:123456789012:model-package/fraud/1',
      },
    });

    // Act
    const summary = await recommendFor(plan, refusing);

    // Assert
    expect(summary.recommendation?.candidateId).toBe('c1');
    expect(summary.comparison?.verdict).toBe('no-baseline');
    expect(store.objects.has(`${PREFIX}report.json`)).toBe(true);
  });
});
