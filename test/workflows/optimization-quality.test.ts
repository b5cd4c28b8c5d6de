import { beforeAll, describe, expect, it } from '@jest/globals';
import type { QualityVerdict } from '../../core/contracts/quality.js';
import type { EndpointAnswer, EndpointAnswerer } from '../../core/ports/index.js';
import type { Report } from '../../core/report/report.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { FakeSageMaker } from '../support/fake-sagemaker.js';
import { optimizationInput, readJson, runOptimization, succeeded } from './run-optimization.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

/** "ref" serves the model as given: the default reference. */
const CANDIDATES = [
  { id: 'ref', instanceType: 'ml.c5.xlarge' },
  { id: 'neo', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
  { id: 'gpu', instanceType: 'ml.g4dn.xlarge' },
];

const LOGITS = [0.1, 2.5, -1.25, 0.75];

function json(values: readonly number[]): EndpointAnswer {
  return {
    ok: true,
    body: new TextEncoder().encode(JSON.stringify({ predictions: [values] })),
    contentType: 'application/json',
  };
}

/** Each endpoint's answer by the candidate id its name ends with; the reference's logits by default. */
function answerer(byCandidate: Readonly<Record<string, EndpointAnswer>> = {}): EndpointAnswerer & {
  readonly asked: string[];
} {
  const asked: string[] = [];
  return {
    asked,
    answer: (endpointName) => {
      const id = CANDIDATES.map((c) => c.id).find((candidate) => endpointName.endsWith(`-${candidate}`));
      asked.push(id ?? endpointName);
      return Promise.resolve((id === undefined ? undefined : byCandidate[id]) ?? json(LOGITS));
    },
  };
}

function guardedInput(
  quality: Record<string, unknown> = { rule: { kind: 'tensor' } },
): Record<string, unknown> {
  return optimizationInput({ candidates: CANDIDATES, quality });
}

function verdictOf(report: Report, id: string): string | undefined {
  return report.candidates.find((candidate) => candidate.id === id)?.verdict;
}

describe('optimization workflow: the output-quality guard', () => {
  it('records each candidate’s answers once (the reference’s twice) and recommends among those that pass', async () => {
    // Prepare
    const endpoints = answerer();

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker: new FakeSageMaker(),
      input: guardedInput(),
      runId: 'quality-pass',
      answerer: endpoints,
    });

    // Assert
    const output = succeeded(run.result);
    expect(run.statesEntered.filter((state) => state === 'Record candidate answers')).toHaveLength(3);
    expect(run.statesEntered.filter((state) => state === 'Judge output quality')).toHaveLength(1);
    expect([...endpoints.asked].sort()).toEqual(['gpu', 'neo', 'ref', 'ref']);
    expect(output.recommendation).not.toBeNull();
    const report = readJson(run.store, output.report.json) as Report;
    expect(report.candidates.map((candidate) => candidate.verdict)).not.toContain('quality-failed');
    const verdict = readJson(
      run.store,
      's3://mso-artifacts/runs/quality-pass/quality/neo/verdict.json',
    ) as QualityVerdict;
    expect(verdict).toMatchObject({ candidateId: 'neo', referenceId: 'ref', verdict: 'passed' });
  }, 60_000);

  it('does not recommend a candidate whose answers are beyond the tolerance, naming why', async () => {
    // Prepare: the compiled candidate answers 1e-3 off on one logit.
    const endpoints = answerer({
      neo: json([0.1, 2.501, -1.25, 0.75]),
      gpu: json([0.1, 2.501, -1.25, 0.75]),
    });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker: new FakeSageMaker(),
      input: guardedInput(),
      runId: 'quality-fail',
      answerer: endpoints,
    });

    // Assert
    const output = succeeded(run.result);
    expect(output.recommendation?.candidateId).toBe('ref');
    const report = readJson(run.store, output.report.json) as Report;
    expect(verdictOf(report, 'neo')).toBe('quality-failed');
    const neo = output.candidates.find((candidate) => candidate.id === 'neo');
    expect(neo?.reason).toContain('broke the output-quality rule (tensor) against the reference ref');
    expect(neo?.reason).toContain('1 of 1 answers beyond tolerance');
  }, 60_000);

  it('ends without a recommendation when every candidate but a failed reference is unjudged', async () => {
    // Prepare: the reference's endpoint fails to deploy.
    const sagemaker = new FakeSageMaker({ endpointFailures: { '-ref': 'the container exited' } });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: guardedInput(),
      runId: 'guard-without-base',
      answerer: answerer(),
    });

    // Assert
    expect(run.result.status).toBe('FAILED');
    expect(run.result).toMatchObject({ error: 'NoRecommendationError' });
    const report = readJson(run.store, 's3://mso-artifacts/runs/guard-without-base/report.json') as Report;
    expect(report.outcome).toBe('no-candidate-passed-quality');
    expect(verdictOf(report, 'neo')).toBe('quality-unknown');
    expect(report.candidates.find((c) => c.id === 'gpu')?.reason).toContain(
      'the reference ref failed (it failed',
    );
  }, 60_000);

  it('recommends an unjudged candidate when the input allows unknown verdicts', async () => {
    // Prepare
    const sagemaker = new FakeSageMaker({ endpointFailures: { '-ref': 'the container exited' } });

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker,
      input: guardedInput({ rule: { kind: 'tensor' }, allowUnknown: true }),
      runId: 'quality-allow-unknown',
      answerer: answerer(),
    });

    // Assert
    const output = succeeded(run.result);
    expect(['neo', 'gpu']).toContain(output.recommendation?.candidateId);
  }, 60_000);

  it('keeps a candidate whose answers could not be recorded unjudged, its load test standing', async () => {
    // Prepare: no answerer: "Record candidate answers" fails on every candidate.

    // Act
    const run = await runOptimization({
      workflows,
      sagemaker: new FakeSageMaker(),
      input: guardedInput(),
      runId: 'quality-no-answers',
    });

    // Assert
    expect(run.result.status).toBe('FAILED');
    const report = readJson(run.store, 's3://mso-artifacts/runs/quality-no-answers/report.json') as Report;
    expect(report.candidates.map((c) => c.status)).toEqual(['MEASURED', 'MEASURED', 'MEASURED']);
    expect(report.candidates.map((c) => c.verdict)).toEqual([
      'quality-unknown',
      'quality-unknown',
      'quality-unknown',
    ]);
    expect(run.statesEntered).toContain('Delete candidate endpoint');
  }, 60_000);

  it('runs neither guard step without a quality block', async () => {
    const run = await runOptimization({
      workflows,
      sagemaker: new FakeSageMaker(),
      input: optimizationInput({ candidates: CANDIDATES }),
      runId: 'quality-off',
    });
    const output = succeeded(run.result);
    expect(run.statesEntered).not.toContain('Record candidate answers');
    expect(run.statesEntered).not.toContain('Judge output quality');
    expect(output.candidates.map((candidate) => candidate.verdict)).not.toContain('quality-unknown');
  }, 60_000);
});
