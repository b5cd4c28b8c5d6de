/**
 * Which AWS adapters (`lambdas/adapters/`) the conformance layer runs: an adapter whose requests
 * never reach a validating fake is checked neither against the service's declaration nor against
 * IAM. One optimization run with a compiled candidate, one async run and one optimization-job run
 * cover the workflows' adapters; each recorded request names the adapter modules on its stack.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, AwsHarness, withShortLoadPlan, withUnmissableSla } from './aws-harness.js';
import { runOptimizationJobExample } from './support/optimization-job-run.js';
import { REPO_ROOT } from './constraints/project-operations.js';

const ADAPTERS_DIR = join(REPO_ROOT, 'lambdas', 'adapters');

/** The adapter modules that send AWS requests (helpers such as error mappers send none). */
function adapterModules(): string[] {
  return readdirSync(ADAPTERS_DIR)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) =>
      /\.send\(|resolveMiddleware\(|paginate[A-Z]/.test(readFileSync(join(ADAPTERS_DIR, file), 'utf8')),
    )
    .map((file) => file.replace(/\.ts$/, ''))
    .sort();
}

/**
 * The adapters no conformance run reaches yet, each with what it would take. The list only
 * shrinks: an adapter added without a run fails this suite, and so does one a run now reaches.
 */
const NOT_YET_RUN: Readonly<Record<string, string>> = {
  'iam-policy-simulator': 'the reused-endpoint check of the async workflow: no IAM fake',
  'sagemaker-endpoint-role': 'the reused-endpoint check of the async workflow: no IAM fake',
  'service-quotas-reader':
    'planning’s quota check: the harness gives no quotas reader and has no Service Quotas fake',
  'sfn-execution-describer': 'the run API: no Step Functions fake for executions',
  'sfn-execution-reader': 'the run API and the janitor: no Step Functions fake for executions',
  'sfn-execution-starter': 'the scheduled and model-approval triggers: no Step Functions fake for executions',
  'sfn-run-events': 'the run API: no Step Functions fake for executions',
  'sfn-run-lister': 'the run API: no Step Functions fake for executions',
  'sfn-run-starter': 'the run API: no Step Functions fake for executions',
  'sfn-run-stopper': 'the run API: no Step Functions fake for executions',
  'sns-publisher': 'the run summary: no SNS fake',
};

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizedWorkflows();
}, 120_000);

function example(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(REPO_ROOT, 'examples', file), 'utf8')) as Record<string, unknown>;
}

/** Every object an input names, seeded (a model archive gzipped, a prefix with three objects). */
function seedObjects(harness: AwsHarness, input: Record<string, unknown>): void {
  for (const [uri] of JSON.stringify(input).matchAll(new RegExp(`s3://${ARTIFACTS_BUCKET}/[^"]+`, 'g'))) {
    if (uri.endsWith('/')) {
      for (const index of [1, 2, 3]) harness.s3.seed(`${uri}sample-${index}.json`, '{"inputs":[[0]]}');
    } else harness.s3.seed(uri, uri.endsWith('.tar.gz') ? gzipSync('model') : '{"inputs":[[0]]}');
  }
}

async function adaptersRun(): Promise<Set<string>> {
  const reached = new Set<string>();
  const record = (harness: AwsHarness): void => {
    for (const call of harness.recorder.calls) for (const adapter of call.adapters) reached.add(adapter);
  };
  const optimization = new AwsHarness();
  const sweep = example('gpu-vs-inferentia.json');
  seedObjects(optimization, sweep);
  const swept = await optimization.runOptimization({
    workflows,
    input: withUnmissableSla(withShortLoadPlan(sweep)),
    runId: 'coverage-sweep',
  });
  record(optimization);

  const asyncRun = new AwsHarness();
  const batch = example('async-benchmark.json');
  seedObjects(asyncRun, batch);
  const asyncStatus = await asyncRun.runAsyncInference({ workflows, input: batch, runId: 'coverage-async' });
  record(asyncRun);

  const generated = await runOptimizationJobExample(workflows, 'coverage-optimization-job');
  record(generated.harness);
  for (const [name, status] of [
    ['sweep', swept.status],
    ['async', asyncStatus.status],
    ['optimization job', generated.status],
  ]) {
    if (status !== 'SUCCEEDED') throw new Error(`The ${name} run ${status}; expected SUCCEEDED`);
  }
  return reached;
}

describe('the conformance layer', () => {
  it('runs every AWS adapter but those it lists as not run yet', async () => {
    // Act
    const reached = await adaptersRun();
    const notRun = adapterModules().filter((adapter) => !reached.has(adapter));

    // Assert
    expect(notRun).toEqual(Object.keys(NOT_YET_RUN).sort());
  }, 120_000);
});
