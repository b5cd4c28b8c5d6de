/**
 * A run whose "Recommend" failed (or that failed after it) still says where its work is: the
 * synthesized optimization definition run locally over the real step handlers, a fake SageMaker
 * and an in-memory store. Its clean-up after the failure names the load-test results stored before
 * the failure (or the report, when "Recommend" wrote it) in the run's cause, beside its account.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { loadTestResultKey } from '../../core/steps/optimization/load-test-results.js';
import { cleanUpInCause } from '../../core/contracts/clean-up-account.js';
import { completedInCause } from '../../core/contracts/completed-work.js';
import { s3Uri } from '../../core/contracts/object-uri.js';
import type { LoadTestResult } from '../../core/load-test/index.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, optimizationInput, readJson, runOptimization } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const NOTHING_LEFT = { endpoints: [], endpointConfigs: [], models: [] };

function failure(result: Awaited<ReturnType<typeof runOptimization>>['result']): {
  error: string;
  cause: string;
} {
  if (result.status !== 'FAILED') throw new Error(`Expected a failed run, got ${JSON.stringify(result)}`);
  return result;
}

describe('optimization workflow: where the work of a failed run is', () => {
  it('fails when "Recommend" fails, its error pointing to the load-test results measured before it, after cleaning up', async () => {
    // Prepare: three candidates measured, then "Recommend" cannot write the report.
    const sagemaker = new FakeSageMaker();
    const reportWriteFailure = Object.assign(new Error('S3 is unreachable'), { name: 'NetworkingError' });
    const runId = 'recommend-failed';

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId,
      override: { recommend: () => Promise.reject(reportWriteFailure) },
    });

    // Assert: the run's error as it came, its message kept, and where the measurements are.
    const { error, cause } = failure(run.result);
    expect(error).toBe('NetworkingError');
    expect((JSON.parse(cause) as { errorMessage: string }).errorMessage).toBe('S3 is unreachable');
    const results = ['cpu', 'cpu-neo', 'gpu'].map((id) =>
      s3Uri(ARTIFACTS_BUCKET, loadTestResultKey(runId, id)),
    );
    expect(completedInCause(cause)).toEqual({
      message: `No report was written. 3 of 3 candidates were measured before the failure: their load-test results (each step's throughput, error rate and latency percentiles) are stored under s3://${ARTIFACTS_BUCKET}/runs/${runId}/load-tests/, one result.json per candidate.`,
      locations: results,
    });
    // Each location holds the candidate's measurement.
    for (const uri of results) {
      expect((readJson(run.store, uri) as LoadTestResult).steps.length).toBeGreaterThan(0);
    }
    // The failed-run clean-up and the nothing-left-running guarantee hold on this path.
    expect(run.statesEntered.slice(-3)).toEqual([
      'Cleaned up after failure?',
      'Add clean-up account to the error',
      'Run failed',
    ]);
    expect(cleanUpInCause(cause)).toMatch(/^Clean-up deleted /);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('points to the report when "Recommend" fails after writing it', async () => {
    // Prepare: the reports are written, then the step fails (its Lambda timed out, say).
    const sagemaker = new FakeSageMaker();
    const runId = 'failed-after-report';
    const late = Object.assign(new Error('Task timed out after 300.00 seconds'), { name: 'States.Timeout' });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId,
      wrap: (handlers) => ({
        recommend: async (payload, signal) => {
          await handlers.recommend(payload, signal);
          throw late;
        },
      }),
    });

    // Assert
    const { cause } = failure(run.result);
    expect(completedInCause(cause)).toEqual({
      message: `The report was written before the failure: s3://${ARTIFACTS_BUCKET}/runs/${runId}/report.html (report.json and report.md beside it).`,
      locations: [`s3://${ARTIFACTS_BUCKET}/runs/${runId}/report.html`],
    });
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('names nothing completed when the run fails before measuring anything', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    const packagingFailure = Object.assign(new Error('S3 is unreachable'), { name: 'NetworkingError' });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'failed-before-measuring',
      override: { 'package-model': () => Promise.reject(packagingFailure) },
    });

    // Assert
    const { cause } = failure(run.result);
    expect(completedInCause(cause)).toBeUndefined();
    expect(cleanUpInCause(cause)).toMatch(/^Clean-up deleted /);
  });
});
