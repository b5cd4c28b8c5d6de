import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { synthesizeWorkflows, type SynthesizedWorkflows } from '../../local/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, AwsHarness, withShortLoadPlan } from './aws-harness.js';
import { REPO_ROOT } from './constraints/project-operations.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizeWorkflows();
}, 120_000);

const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
// As test/examples.test.ts classifies them: local*.json run locally, async-*.json are async runs.
const awsExamples = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json') && !file.startsWith('local'));
const optimizationExamples = awsExamples.filter((file) => !file.startsWith('async-'));

function example(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as Record<string, unknown>;
}

describe('optimization examples on AWS (real adapters, validated requests)', () => {
  it.each(optimizationExamples)('%s makes only requests the services accept', async (file) => {
    const harness = new AwsHarness();
    const input = withShortLoadPlan(example(file));
    seedUris(harness, input);
    const result = await harness.runOptimization({ workflows, input, runId: `conformance-${file.replace('.json', '')}` });
    console.log(file, result.status, JSON.stringify(result).slice(0, 1500), harness.recorder.calls.map((c) => c.command).join(' '));
    expect(harness.recorder.violationLines()).toEqual([]);
  });
});

function seedUris(harness: AwsHarness, input: unknown): void {
  const text = JSON.stringify(input);
  for (const match of text.matchAll(new RegExp(`s3://${ARTIFACTS_BUCKET}/[^"]+`, 'g'))) {
    if (!match[0].endsWith('/')) harness.s3.seed(match[0], '{"inputs":[[0]]}');
  }
}
