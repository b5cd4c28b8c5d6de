/**
 * The workflows' AWS requests, checked against what the services declare: every AWS example (and
 * edge inputs the run schemas accept) runs through its synthesized state machine over the real SDK
 * adapters and validating fakes (aws-harness.ts), and must make zero requests a service would
 * refuse. One file, so the stack is synthesized once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { synthesizeWorkflows, type SynthesizedWorkflows } from '../../local/synthesized-workflows.js';
import { ARTIFACTS_BUCKET, AwsHarness, NOTIFICATION_TOPICS, withShortLoadPlan } from './aws-harness.js';
import { REPO_ROOT } from './constraints/project-operations.js';

let workflows: SynthesizedWorkflows;

beforeAll(() => {
  workflows = synthesizeWorkflows();
}, 120_000);

const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
// As test/examples.test.ts classifies them: local*.json run locally, async-*.json are async runs.
const awsExamples = readdirSync(EXAMPLES_DIR).filter((file) => file.endsWith('.json') && !file.startsWith('local'));
const optimizationExamples = awsExamples.filter((file) => !file.startsWith('async-'));
const asyncExamples = awsExamples.filter((file) => file.startsWith('async-'));

function example(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as Record<string, unknown>;
}

/**
 * What the account holds before a run: every object the input names, a few objects under an input
 * prefix, and the endpoints an input reuses (the production endpoint with its instances; an async
 * endpoint that publishes to this stack's topics).
 */
function prepareAccount(harness: AwsHarness, input: Record<string, unknown>): void {
  for (const match of JSON.stringify(input).matchAll(new RegExp(`s3://${ARTIFACTS_BUCKET}/[^"]+`, 'g'))) {
    const uri = match[0];
    if (uri.endsWith('/')) {
      for (const index of [1, 2, 3]) harness.s3.seed(`${uri}sample-${index}.json`, '{"inputs":[[0]]}');
    } else {
      harness.s3.seed(uri, '{"inputs":[[0]]}');
    }
  }
  const existing = input.existingEndpoint as { endpointName: string; instanceType: string; instanceCount?: number } | undefined;
  if (existing !== undefined) {
    harness.sagemaker.addExistingEndpoint({
      endpointName: existing.endpointName,
      instanceType: existing.instanceType,
      instanceCount: existing.instanceCount ?? 1,
    });
  }
  if (typeof input.endpointName === 'string') {
    harness.sagemaker.addExistingEndpoint({
      endpointName: input.endpointName,
      instanceType: 'ml.g5.xlarge',
      instanceCount: 1,
      asyncInference: {
        OutputConfig: {
          S3OutputPath: `s3://${ARTIFACTS_BUCKET}/runs/reused/output/`,
          S3FailurePath: `s3://${ARTIFACTS_BUCKET}/runs/reused/failures/`,
          NotificationConfig: {
            SuccessTopic: NOTIFICATION_TOPICS.successTopicArn,
            ErrorTopic: NOTIFICATION_TOPICS.errorTopicArn,
          },
        },
      },
    });
  }
}

async function runOptimization(input: Record<string, unknown>, runId: string): Promise<AwsHarness> {
  const harness = new AwsHarness();
  prepareAccount(harness, input);
  const result = await harness.runOptimization({ workflows, input: withShortLoadPlan(input), runId });
  if (result.status !== 'SUCCEEDED') throw new Error(`Run ${runId} ${result.status}: ${JSON.stringify(result)}`);
  return harness;
}

async function runAsync(input: Record<string, unknown>, runId: string): Promise<AwsHarness> {
  const harness = new AwsHarness();
  prepareAccount(harness, input);
  const result = await harness.runAsyncInference({ workflows, input, runId });
  if (result.status !== 'SUCCEEDED') throw new Error(`Run ${runId} ${result.status}: ${JSON.stringify(result)}`);
  return harness;
}

function runIdOf(file: string): string {
  return `conformance-${file.replace('.json', '')}`;
}

describe('the AWS examples make only requests the services accept', () => {
  it.each(optimizationExamples)('%s', async (file) => {
    // Act
    const harness = await runOptimization(example(file), runIdOf(file));

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
  });

  it.each(asyncExamples)('%s', async (file) => {
    // Act
    const harness = await runAsync(example(file), runIdOf(file));

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
  });
});
