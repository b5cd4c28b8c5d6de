import { beforeAll, describe, expect, it } from '@jest/globals';
import { findInstance } from '../../core/catalog/instances.js';
import { ErrorNames } from '../../core/contracts/errors.js';
import type { LoadTestResult } from '../../core/load-test/index.js';
import type { EndpointMetricsQuery, EndpointMetricsReader, ModelSpec } from '../../core/ports/index.js';
import type { NoRecommendationCause, RunSummary } from '../../core/contracts/optimization-state.js';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import {
  ARTIFACTS_BUCKET,
  optimizationInput,
  readJson,
  runOptimization,
  succeeded,
} from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

const NOTHING_LEFT = { endpoints: [], endpointConfigs: [], models: [] };

/** A run that ended in "No recommendation": its cause, parsed. */
function noRecommendation(
  result: Awaited<ReturnType<typeof runOptimization>>['result'],
): NoRecommendationCause {
  if (result.status !== 'FAILED' || result.error !== ErrorNames.noRecommendation) {
    throw new Error(`Expected NoRecommendationError, got ${JSON.stringify(result)}`);
  }
  return JSON.parse(result.cause) as NoRecommendationCause;
}

function verdicts(summary: RunSummary): Record<string, string> {
  return Object.fromEntries(summary.candidates.map((c) => [c.id, c.verdict]));
}

describe('optimization workflow (synthesized definition, run locally)', () => {
  it('benchmarks every candidate, recommends the cheapest under the SLA and deletes everything', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'happy',
      // The compiled candidate is the fastest, the GPU the most expensive.
      endpoints: (name) => ({ latencyMs: name.includes('cpu-neo') ? 2 : 6 }),
    });

    // Assert
    const summary = succeeded(run.result);
    expect(summary.recommendation?.candidateId).toBe('cpu-neo');
    expect(summary.outcome).toBe('recommended');
    expect(run.statesEntered.slice(-2)).toEqual(['Recommendation made?', 'Run succeeded']);
    expect(verdicts(summary)).toEqual({ cpu: 'runner-up', 'cpu-neo': 'recommended', gpu: 'runner-up' });
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
    const models = [...sagemaker.calls].filter((call) => call.startsWith('CreateModel'));
    expect(models).toHaveLength(3);
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/happy/report.json`) as Report;
    expect(report.candidates.map((c) => [c.id, c.status, c.steps.length])).toEqual([
      ['cpu', 'MEASURED', 2],
      ['cpu-neo', 'MEASURED', 2],
      ['gpu', 'MEASURED', 2],
    ]);
    expect(summary.report.html).toBe(`s3://${ARTIFACTS_BUCKET}/runs/happy/report.html`);
    expect(run.store.objects.has(summary.report.markdown)).toBe(true);
  });

  it('deploys a compiled candidate from the compiled artifact and the others from the packaged model', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'artifacts',
    });

    // Assert
    succeeded(run.result);
    const job = [...sagemaker.compilationJobs.values()][0]?.spec;
    expect(job).toMatchObject({
      target: 'ml_c5',
      framework: 'onnx',
      inputShape: { input: [1, 3, 32, 32] },
      modelDataUrl: `s3://${ARTIFACTS_BUCKET}/runs/artifacts/model/model.tar.gz`,
      outputUri: `s3://${ARTIFACTS_BUCKET}/runs/artifacts/compiled/ml_c5/`,
    });
    expect(run.store.objects.has(`s3://${ARTIFACTS_BUCKET}/runs/artifacts/model/model.tar.gz`)).toBe(true);
  });

  it('shows in report.json the image, model data and environment each candidate was deployed with', async () => {
    // Prepare: the fake deletes its models at clean-up, so keep what CreateModel received.
    const sagemaker = new FakeSageMaker();
    const created: ModelSpec[] = [];
    const createModel = sagemaker.createModel.bind(sagemaker);
    sagemaker.createModel = (spec) => {
      created.push(spec);
      return createModel(spec);
    };

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'deployed',
    });

    // Assert
    succeeded(run.result);
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/deployed/report.json`) as Report;
    const shown = report.candidates.map((c) => [c.id, c.deploy?.createModel.PrimaryContainer]);
    const sent = report.candidates.map((c) => {
      const spec = created.find((m) => m.tags['mso:candidate-id'] === c.id);
      return [c.id, { Image: spec?.image, ModelDataUrl: spec?.modelDataUrl, Environment: spec?.environment }];
    });
    expect(shown).toEqual(sent);
  });

  it('skips the candidates of a failed compilation target with the reason, and measures the rest', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker({
      compilationFailures: { ml_c5: 'ClientError: unsupported operator Foo' },
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'compile-fails',
    });

    // Assert
    const summary = succeeded(run.result);
    expect(verdicts(summary)['cpu-neo']).toBe('skipped');
    expect(summary.candidates.find((c) => c.id === 'cpu-neo')?.reason).toBe(
      'skipped: compilation for ml_c5 failed: ClientError: unsupported operator Foo',
    );
    expect(verdicts(summary).cpu).not.toBe('skipped');
    expect(sagemaker.calls.filter((call) => call.includes('cpu-neo'))).toEqual([]);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('records an endpoint that fails with SageMaker’s reason and deletes its resources', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker({
      endpointFailures: {
        '-ep-gpu':
          'The primary container for production variant AllTraffic did not pass the ping health check',
      },
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'endpoint-fails',
    });

    // Assert
    const summary = succeeded(run.result);
    const gpu = summary.candidates.find((c) => c.id === 'gpu');
    expect(gpu?.verdict).toBe('failed');
    expect(gpu?.reason).toMatch(
      /^failed: EndpointFailedError: Endpoint mso-.*-ep-gpu failed: The primary container/,
    );
    expect(sagemaker.calls).toEqual(
      expect.arrayContaining([expect.stringMatching(/^DeleteEndpoint mso-.*-ep-gpu$/)]),
    );
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('records a quota error on one candidate, goes on with the others and calls the run partial', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker({ quotaExceededFor: ['ml.g4dn.xlarge'] });

    // Act
    const run = await runOptimization({ workflows, sagemaker, input: optimizationInput(), runId: 'quota' });

    // Assert
    const summary = succeeded(run.result);
    const gpu = summary.candidates.find((c) => c.id === 'gpu');
    expect(gpu?.reason).toMatch(/^failed: QuotaExceededError: .*request a quota increase/);
    expect(summary.recommendation).not.toBeNull();
    expect(summary.outcome).toBe('partial');
    expect(run.statesEntered.at(-1)).toBe('Run succeeded');
    // The model and endpoint config created before the refusal are deleted too.
    expect(sagemaker.calls).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^DeleteEndpointConfig mso-.*-ec-gpu$/),
        expect.stringMatching(/^DeleteModel mso-.*-m-gpu$/),
      ]),
    );
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('calls a candidate whose model fails every request "model errors", with the model’s response and a hint to check the model', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'model-errors',
      endpoints: (name) =>
        name.includes('-ep-gpu')
          ? { latencyMs: 1, modelError: { statusCode: 500, message: 'CUDA error: out of memory' } }
          : { latencyMs: 2 },
    });

    // Assert
    const summary = succeeded(run.result);
    const gpu = summary.candidates.find((c) => c.id === 'gpu');
    expect(gpu?.verdict).toBe('model-errors');
    expect(gpu?.reason).toMatch(
      /^model errors: every request of the first step \(load 1\) failed, \d+ of \d+ with a model error, e\.g\. 500 "CUDA error: out of memory"; check the model and the payload/,
    );
    // A recommendation, but not every candidate could be judged against the SLA.
    expect(summary.outcome).toBe('partial');
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/model-errors/report.json`) as Report;
    expect(report.candidates.find((c) => c.id === 'gpu')?.steps[0]?.latencyMs).toBeNull();
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('ends FAILED with NoRecommendationError when no candidate meets the SLA, after writing the report and cleaning up', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ sla: { p95LatencyMs: 1 } }),
      runId: 'no-sla',
      endpoints: () => ({ latencyMs: 8 }),
    });

    // Assert
    const cause = noRecommendation(run.result);
    const reportUri = `s3://${ARTIFACTS_BUCKET}/runs/no-sla/report.html`;
    expect(cause).toEqual({
      errorMessage: `No recommendation: no candidate met the SLA; 3 candidates: 3 missed the SLA. Report: ${reportUri}`,
      outcome: 'no-candidate-met-sla',
      counts: {
        recommended: 0,
        'runner-up': 0,
        'missed-sla': 3,
        'quality-failed': 0,
        'quality-unknown': 0,
        stalled: 0,
        'model-errors': 0,
        'measurement-problem': 0,
        failed: 0,
        skipped: 0,
      },
      report: {
        json: `s3://${ARTIFACTS_BUCKET}/runs/no-sla/report.json`,
        markdown: `s3://${ARTIFACTS_BUCKET}/runs/no-sla/report.md`,
        html: reportUri,
      },
      cleanUp: expect.stringMatching(/./) as unknown as string,
      comparison: null,
    });
    expect(run.statesEntered.slice(-5)).toEqual([
      'Clean-up accounted for',
      'Recommendation made?',
      'Explain no recommendation',
      'Write no-recommendation cause',
      'No recommendation',
    ]);
    const report = readJson(run.store, cause.report.json) as Report;
    expect(report.outcome).toBe('no-candidate-met-sla');
    expect(run.store.objects.has(reportUri)).toBe(true);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('fails when the estimated cost exceeds the budget, before creating anything', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ maxCostUsd: 0.01 }),
      runId: 'budget',
    });

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.budgetExceeded });
    expect(run.result.status === 'FAILED' ? run.result.cause : '').toMatch(/exceeds maxCostUsd \$0\.01/);
    expect(run.statesEntered.at(-1)).toBe('Run refused');
    expect(sagemaker.calls).toEqual([]);
  });

  it('fails when the input is invalid, naming the field, before creating anything', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ sla: { p95LatencyMs: -3 } }),
      runId: 'invalid',
    });

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: ErrorNames.invalidRunInput });
    expect(run.result.status === 'FAILED' ? run.result.cause : '').toContain('sla.p95LatencyMs: got -3');
    expect(sagemaker.calls).toEqual([]);
  });

  it('cleans up everything when a step fails after resources exist, and keeps the error', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    const reportWriteFailure = Object.assign(new Error('S3 is unreachable'), { name: 'NetworkingError' });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ cleanup: { policy: 'keep-recommended' } }),
      runId: 'late-failure',
      override: { recommend: () => Promise.reject(reportWriteFailure) },
    });

    // Assert
    expect(run.result).toMatchObject({ status: 'FAILED', error: 'NetworkingError' });
    expect(run.statesEntered.slice(-3)).toEqual([
      'Cleaned up after failure?',
      'Add clean-up account to the error',
      'Run failed',
    ]);
    // keep-recommended had kept the endpoints until the ranking: the failure path deletes them.
    expect(sagemaker.calls.filter((call) => call.startsWith('DeleteEndpoint '))).toHaveLength(3);
    expect(sagemaker.leftovers()).toEqual(NOTHING_LEFT);
  });

  it('keeps only the recommended endpoint when the clean-up policy asks for it', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({ cleanup: { policy: 'keep-recommended' } }),
      runId: 'keep',
      endpoints: (name) => ({ latencyMs: name.includes('cpu-neo') ? 2 : 6 }),
    });

    // Assert
    const summary = succeeded(run.result);
    expect(summary.keep?.endpointName).toMatch(/-ep-cpu-neo$/);
    const left = sagemaker.leftovers();
    expect(left.endpoints).toEqual([summary.keep?.endpointName]);
    expect(left.endpointConfigs).toEqual([summary.keep?.endpointConfigName]);
    expect(left.models).toEqual([summary.keep?.modelName]);
    // Tagged so that the janitor never sweeps what the user asked to keep.
    expect(sagemaker.tagsOf('endpoint', left.endpoints[0] ?? '')).toMatchObject({ 'mso:keep': 'true' });
    expect(sagemaker.tagsOf('model', left.models[0] ?? '')).toMatchObject({ 'mso:keep': 'true' });
  });

  it('adds each endpoint’s own metrics over its test window to the report, noting any it could not read', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    const queries: EndpointMetricsQuery[] = [];
    const metrics: EndpointMetricsReader = {
      read: (query) => {
        queries.push(query);
        if (query.endpointName.endsWith('-ep-gpu')) return Promise.reject(new Error('Rate exceeded'));
        return Promise.resolve({
          source: 'cloudwatch',
          modelLatencyMs: { average: 4.2, maximum: 9.1 },
          cpuUtilizationPercent: { average: 180, maximum: 390 },
        });
      },
    };

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput(),
      runId: 'metrics',
      metrics,
    });

    // Assert
    succeeded(run.result);
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/metrics/report.json`) as Report;
    const cpu = report.candidates.find((c) => c.id === 'cpu');
    expect(cpu?.endpointMetrics).toEqual({
      source: 'cloudwatch',
      modelLatencyMs: { average: 4.2, maximum: 9.1 },
      cpuUtilizationPercent: { average: 180, maximum: 390 },
    });
    expect(report.candidates.find((c) => c.id === 'gpu')?.endpointMetricsNote).toBe(
      'unavailable (Error: Rate exceeded)',
    );
    const cpuQuery = queries.find((q) => q.endpointName.endsWith('-ep-cpu'));
    expect(cpuQuery).toMatchObject({ variantName: 'AllTraffic' });
    expect((cpuQuery?.endEpochMs ?? 0) - (cpuQuery?.startEpochMs ?? 0)).toBeGreaterThanOrEqual(400);
    const markdown = new TextDecoder().decode(
      run.store.objects.get(`s3://${ARTIFACTS_BUCKET}/runs/metrics/report.md`)?.body,
    );
    expect(markdown).toContain('Endpoint metrics over the test (CloudWatch): model latency avg 4.2');
  });

  it('load tests an existing endpoint without creating or deleting anything', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    sagemaker.addExistingEndpoint('prod-resnet', 'ml.c5.2xlarge');

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({
        model: undefined,
        compilation: undefined,
        candidates: undefined,
        existingEndpoint: { endpointName: 'prod-resnet', instanceType: 'ml.c5.2xlarge' },
      }),
      runId: 'existing',
    });

    // Assert
    const summary = succeeded(run.result);
    expect(summary.recommendation?.candidateId).toBe('existing');
    expect(sagemaker.calls).toEqual([]);
    expect(sagemaker.leftovers().endpoints).toEqual(['prod-resnet']);
  });

  it('costs an existing endpoint as DescribeEndpoint has it, and reads the metrics of its variant', async () => {
    // Prepare: 3 × ml.c5.xlarge in variant "blue", while the run input says 1 × ml.m5.large.
    const sagemaker = new FakeSageMaker();
    sagemaker.addExistingEndpoint('prod-resnet', 'ml.c5.xlarge', { instanceCount: 3, variantName: 'blue' });
    const queries: EndpointMetricsQuery[] = [];
    const metrics: EndpointMetricsReader = {
      read: (query) => {
        queries.push(query);
        return Promise.resolve(undefined);
      },
    };

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({
        model: undefined,
        compilation: undefined,
        candidates: undefined,
        existingEndpoint: { endpointName: 'prod-resnet', instanceType: 'ml.m5.large', instanceCount: 1 },
      }),
      runId: 'existing-blue',
      metrics,
    });

    // Assert
    succeeded(run.result);
    const report = readJson(run.store, `s3://${ARTIFACTS_BUCKET}/runs/existing-blue/report.json`) as Report;
    const existing = report.candidates.find((c) => c.id === 'existing');
    const result = readJson(run.store, existing?.resultUri ?? '') as LoadTestResult;
    const usdPerHour = 3 * (findInstance('ml.c5.xlarge')?.usdPerHour ?? Number.NaN);
    const round4 = (value: number) => Math.round(value * 1e4) / 1e4;
    expect(existing).toMatchObject({
      instanceType: 'ml.c5.xlarge',
      instanceCount: 3,
      costPerHourUsd: round4(usdPerHour),
      priceSource: 'price-table',
      costPer1MUsd: round4((usdPerHour / ((result.sustainableTps ?? Number.NaN) * 3600)) * 1e6),
      configurationNote:
        'existingEndpoint says ml.m5.large × 1, the endpoint has ml.c5.xlarge × 3 (variant blue): ' +
        'costed as the endpoint is',
    });
    expect(report.recommendation).toMatchObject({ instanceType: 'ml.c5.xlarge', instanceCount: 3 });
    expect(queries.map(({ endpointName, variantName }) => ({ endpointName, variantName }))).toEqual([
      { endpointName: 'prod-resnet', variantName: 'blue' },
    ]);
  });

  it('refuses to measure an existing endpoint with several variants, naming existingEndpoint.endpointName, and ends with every candidate failed', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker();
    sagemaker.addExistingEndpoint('prod-resnet', 'ml.c5.xlarge', {
      variantName: 'blue',
      otherVariants: ['green'],
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: optimizationInput({
        model: undefined,
        compilation: undefined,
        candidates: undefined,
        existingEndpoint: { endpointName: 'prod-resnet' },
      }),
      runId: 'existing-two-variants',
    });

    // Assert
    const cause = noRecommendation(run.result);
    expect(cause.outcome).toBe('all-candidates-failed');
    expect(cause.errorMessage).toMatch(
      /^No recommendation: every candidate failed; 1 candidate: 1 failed\. Report: /,
    );
    const report = readJson(run.store, cause.report.json) as Report;
    expect(report.candidates.map(({ id, verdict, reason }) => ({ id, verdict, reason }))).toEqual([
      {
        id: 'existing',
        verdict: 'failed',
        reason:
          'failed: EndpointFailedError: existingEndpoint.endpointName prod-resnet: got an endpoint with 2 ' +
          'production variants (blue, green), expected one: the load would split between them by weight, so ' +
          'no single instance type could be costed. Point existingEndpoint at an endpoint that serves one ' +
          'variant (e.g. a copy of the variant you want to measure)',
      },
    ]);
    expect(sagemaker.leftovers().endpoints).toEqual(['prod-resnet']);
  });
});
