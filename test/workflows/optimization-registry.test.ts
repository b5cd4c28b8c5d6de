import { beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorNames } from '../../core/contracts/errors.js';
import type { NoRecommendationCause } from '../../core/contracts/optimization-state.js';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { MemoryObjectStore } from '../support/memory-object-store.js';
import {
  ARTIFACTS_BUCKET,
  MODEL_URI,
  optimizationInput,
  PAYLOAD_URI,
  readJson,
  runOptimization,
  succeeded,
} from './run-optimization.js';

/**
 * Runs of Model Registry package versions (run input `modelPackage`, as the approval trigger sets
 * it), one after the other over one artifacts store: each is compared in "Recommend" with the
 * group's last approved run (core/report/registry-baseline.ts).
 */

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const GROUP = 'fraud-detector';
const INDEX_URI = `s3://${ARTIFACTS_BUCKET}/model-packages/${GROUP}/last-approved.json`;

function modelPackage(version: number) {
  return {
    groupName: GROUP,
    version,
    arn: `arn:aws:sagemaker:us-east-1:123456789012:model-package/${GROUP}/${version}`,
  };
}

function runIdOf(version: number): string {
  return `approved-${GROUP}-v${version}`;
}

function reportUriOf(version: number): string {
  return `s3://${ARTIFACTS_BUCKET}/runs/${runIdOf(version)}/report.json`;
}

/** One store for every run, as the artifacts bucket is. */
function sharedStore(): MemoryObjectStore {
  return new MemoryObjectStore().seed(MODEL_URI, 'onnx-bytes').seed(PAYLOAD_URI, '{"inputs":[[0]]}');
}

/** Runs version `version` of the group, its endpoints answering in `latencyMs`. */
async function runVersion(
  store: MemoryObjectStore,
  version: number,
  latencyMs: number,
  overrides: Record<string, unknown> = {},
) {
  return runOptimization({
    workflows,
    sagemaker: new FakeSageMaker(),
    input: optimizationInput({
      candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
      compilation: { targets: [] },
      modelPackage: modelPackage(version),
      // Far above the stub latencies: every version meets it, even on a busy machine.
      sla: { p95LatencyMs: 1000 },
      ...overrides,
    }),
    runId: runIdOf(version),
    endpoints: () => ({ latencyMs }),
    store: () => store,
  });
}

describe('optimization workflow: a Model Registry version against the last approved one', () => {
  it('says "no baseline" for the first version of a group, and records the run as its baseline', async () => {
    // Prepare
    const store = sharedStore();

    // Act
    const run = await runVersion(store, 1, 2);

    // Assert
    const summary = succeeded(run.result);
    const text = `No baseline: no earlier approved version of model package group ${GROUP} has a report, so version 1 is the group's first baseline.`;
    expect(summary.comparison).toEqual({ verdict: 'no-baseline', text });
    const report = readJson(store, reportUriOf(1)) as Report;
    expect(report.modelPackage).toEqual(modelPackage(1));
    expect(report.baselineComparison).toEqual({ verdict: 'no baseline', text });
    expect(readJson(store, INDEX_URI)).toEqual({
      schemaVersion: 1,
      groupName: GROUP,
      last: {
        runId: runIdOf(1),
        modelPackageVersion: 1,
        modelPackageArn: modelPackage(1).arn,
        reportUri: reportUriOf(1),
      },
      updatedAt: expect.any(String),
    });
  });

  it('says "regressed" when the new version is slower, in the summary, the report and the index', async () => {
    // Prepare
    const store = sharedStore();
    succeeded((await runVersion(store, 1, 2)).result);

    // Act
    const run = await runVersion(store, 2, 12);

    // Assert
    const summary = succeeded(run.result);
    expect(summary.comparison).toEqual({
      verdict: 'regressed',
      text: expect.stringMatching(
        new RegExp(
          `^Regressed versus version 1 \\(run ${runIdOf(1)}\\): cpu \\(recommended by ${runIdOf(1)}\\): worse: TPS `,
        ),
      ),
      baselineRunId: runIdOf(1),
    });
    const report = readJson(store, reportUriOf(2)) as Report;
    expect(report.baselineComparison?.verdict).toBe('regressed');
    expect(report.baselineComparison?.baseline).toEqual({
      runId: runIdOf(1),
      modelPackageVersion: 1,
      modelPackageArn: modelPackage(1).arn,
      reportUri: reportUriOf(1),
    });
    const markdown = new TextDecoder().decode(
      store.objects.get(`s3://${ARTIFACTS_BUCKET}/runs/${runIdOf(2)}/report.md`)?.body,
    );
    expect(markdown).toContain('## Compared with the last approved version');
    expect(markdown).toContain(`**Regressed versus version 1 (run ${runIdOf(1)}): cpu (recommended by`);
    expect(readJson(store, INDEX_URI)).toMatchObject({
      last: { runId: runIdOf(2), modelPackageVersion: 2 },
      previous: { runId: runIdOf(1), modelPackageVersion: 1 },
    });
  });

  it('says "improved" when the new version is faster', async () => {
    // Prepare
    const store = sharedStore();
    succeeded((await runVersion(store, 1, 12)).result);

    // Act
    const run = await runVersion(store, 2, 2);

    // Assert
    const summary = succeeded(run.result);
    expect(summary.comparison?.verdict).toBe('improved');
    expect(summary.comparison?.text).toMatch(
      new RegExp(
        `^Improved versus version 1 \\(run ${runIdOf(1)}\\): cpu \\(recommended by ${runIdOf(1)}\\): better: TPS `,
      ),
    );
  });

  it('says "regressed" in the no-recommendation cause when the new version meets the SLA no more', async () => {
    // Prepare
    const store = sharedStore();
    succeeded((await runVersion(store, 1, 2, { sla: { p95LatencyMs: 100 } })).result);

    // Act: every request of version 2 takes longer than the SLA allows.
    const run = await runVersion(store, 2, 150, { sla: { p95LatencyMs: 100 } });

    // Assert
    if (run.result.status !== 'FAILED' || run.result.error !== ErrorNames.noRecommendation) {
      throw new Error(`Expected NoRecommendationError, got ${JSON.stringify(run.result)}`);
    }
    const cause = JSON.parse(run.result.cause) as NoRecommendationCause;
    expect(cause.comparison).toEqual({
      verdict: 'regressed',
      text: `Regressed versus version 1 (run ${runIdOf(1)}): ${runIdOf(2)} recommends nothing (no-candidate-met-sla); ${runIdOf(1)} recommended cpu.`,
      baselineRunId: runIdOf(1),
    });
  });
});
