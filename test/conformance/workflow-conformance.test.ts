/**
 * The workflows' AWS requests, checked against what the services declare: every AWS example (and
 * edge inputs the run schemas accept) runs through its synthesized state machine over the real SDK
 * adapters and validating fakes (aws-harness.ts), and must make zero requests a service would
 * refuse, and zero that IAM would deny the function sending it (iam/iam-evaluator.ts). One file,
 * so the stack is synthesized once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, jest } from '@jest/globals';
import { defaultStreamFormat } from '../../core/contracts/stream-format.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../support/synthesized-workflows.js';
import {
  ARTIFACTS_BUCKET,
  AwsHarness,
  NOTIFICATION_TOPICS,
  withShortLoadPlan,
  withUnmissableSla,
} from './aws-harness.js';
import { REPO_ROOT } from './constraints/project-operations.js';
import type { AwsRecorder } from './fake-aws/recorder.js';
import { iamEvaluator } from './iam/conformance-iam.js';
import type { IamEvaluator } from './iam/iam-evaluator.js';
import type { StreamFormat } from '../../core/contracts/stream-format.js';
import type { LlmContainer } from '../../core/contracts/model-frameworks.js';

/**
 * Each test runs whole workflows through the SDK's middleware and the IAM evaluation of every call,
 * some CPU-seconds each, and waits on no real time (the load windows are simulated, aws-harness.ts):
 * only the CPU it gets sets how long it takes, which on two cores shared with twenty other
 * processes is a tenth of one. This limit is for a run that hangs, not for a busy machine.
 */
jest.setTimeout(180_000);

let workflows: SynthesizedWorkflows;
let iam: IamEvaluator;

beforeAll(() => {
  workflows = synthesizedWorkflows();
  iam = iamEvaluator(workflows);
}, 120_000);

/**
 * What IAM would refuse of a run's calls (`function <step>: <action> on <arn> denied (…)`), and
 * any call no function sent: a run's every call belongs to a step.
 */
async function iamDenials(recorder: AwsRecorder): Promise<string[]> {
  const verdict = await iam.evaluate(recorder.calls);
  return [...verdict.denied, ...verdict.unattributed.map((call) => `${call}: sent outside any function`)];
}

const EXAMPLES_DIR = join(REPO_ROOT, 'examples');
// As test/examples.test.ts classifies them: local*.json run locally, async-*.json are async runs.
const awsExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.startsWith('local'),
);
const optimizationExamples = awsExamples.filter((file) => !file.startsWith('async-'));
const asyncExamples = awsExamples.filter((file) => file.startsWith('async-'));

function example(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8')) as Record<string, unknown>;
}

/**
 * What the account holds before a run: every object the input names (a model archive gzipped), a few objects under an input
 * prefix, and the endpoints an input reuses (the production endpoint with its instances; an async
 * endpoint that publishes to this stack's topics).
 */
function prepareAccount(harness: AwsHarness, input: Record<string, unknown>): void {
  for (const match of JSON.stringify(input).matchAll(new RegExp(`s3://${ARTIFACTS_BUCKET}/[^"]+`, 'g'))) {
    const uri = match[0];
    if (uri.endsWith('/')) {
      for (const index of [1, 2, 3]) harness.s3.seed(`${uri}sample-${index}.json`, '{"inputs":[[0]]}');
    } else {
      // A model archive must be gzip-compressed: the first state reads its first bytes.
      harness.s3.seed(uri, uri.endsWith('.tar.gz') ? gzipSync('model') : '{"inputs":[[0]]}');
    }
  }
  // A streamed plan's payload asks the container to stream (the planner checks it per format).
  const payloadUri = (input.payload as { uri?: string } | undefined)?.uri;
  if (streamFormatOf(input) !== undefined && payloadUri !== undefined) {
    harness.s3.seed(
      payloadUri,
      streamFormatOf(input) === 'openai'
        ? '{"messages":[{"role":"user","content":"Hello"}],"max_tokens":2,"stream":true}'
        : '{"inputs":"Hello","parameters":{"max_new_tokens":2},"stream":true}',
    );
  }
  const existing = input.existingEndpoint as
    { endpointName: string; instanceType: string; instanceCount?: number } | undefined;
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
  const streamFormat = streamFormatOf(input);
  const result = await harness.runOptimization({
    workflows,
    input: withUnmissableSla(withShortLoadPlan(input)),
    runId,
    ...(streamFormat === undefined ? {} : { streamFormat }),
  });
  if (result.status !== 'SUCCEEDED')
    throw new Error(`Run ${runId} ${result.status}: ${JSON.stringify(result)}`);
  return harness;
}

async function runAsync(input: Record<string, unknown>, runId: string): Promise<AwsHarness> {
  const harness = new AwsHarness();
  prepareAccount(harness, input);
  const result = await harness.runAsyncInference({ workflows, input, runId });
  if (result.status !== 'SUCCEEDED')
    throw new Error(`Run ${runId} ${result.status}: ${JSON.stringify(result)}`);
  return harness;
}

/**
 * The format the example's endpoints stream in, for a plan whose answers stream: the one it names,
 * else its container's default (as planning reads it).
 */
function streamFormatOf(input: Record<string, unknown>): StreamFormat | undefined {
  const plan = input.loadPlan as { response?: { mode?: string; format?: StreamFormat } } | undefined;
  if (plan?.response?.mode !== 'stream') return undefined;
  if (plan.response.format !== undefined) return plan.response.format;
  const model = input.model as { framework: LlmContainer; environment?: Record<string, string> };
  return defaultStreamFormat(model.framework, model.environment ?? {});
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
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it.each(asyncExamples)('%s', async (file) => {
    // Act
    const harness = await runAsync(example(file), runIdOf(file));

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });
});

/** A minimal optimization input in the artifacts bucket, with a short load plan. */
function optimizationInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: {
      artifactUri: `s3://${ARTIFACTS_BUCKET}/models/cnn/model.tar.gz`,
      framework: 'pytorch',
      frameworkVersion: '2.0',
      inputShape: { input0: [1, 3, 224, 224] },
    },
    payload: { uri: `s3://${ARTIFACTS_BUCKET}/models/cnn/payload.json`, contentType: 'application/json' },
    candidates: [{ id: 'cpu', instanceType: 'ml.c5.xlarge' }],
    loadPlan: {
      model: 'closed',
      steps: [1],
      warmupSeconds: 0,
      stepDurationSeconds: 0.1,
      stopAtPlateau: false,
    },
    sla: { p95LatencyMs: 50 },
    ...overrides,
  };
}

describe('edge inputs the run schemas accept make only requests the services accept', () => {
  it('a run id of 80 characters, underscores included (Step Functions’ longest execution name)', async () => {
    // Prepare
    const runId = `run_${'x'.repeat(38)}_${'y'.repeat(37)}`;

    // Act
    const harness = await runOptimization(optimizationInput(), runId);

    // Assert
    expect(runId).toHaveLength(80);
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it('an output-quality guard: every candidate’s answers asked with the quality-pass role', async () => {
    // Prepare: two candidates, the first the reference.
    const input = optimizationInput({
      candidates: [
        { id: 'cpu', instanceType: 'ml.c5.xlarge' },
        { id: 'cpu-2x', instanceType: 'ml.c5.2xlarge' },
      ],
      quality: { rule: { kind: 'classifier' } },
    });

    // Act
    const harness = await runOptimization(input, 'quality-guard');

    // Assert: the reference asked twice, the other once, by the quality pass.
    const asked = harness.recorder.calls.filter(
      (call) => call.command === 'InvokeEndpointCommand' && call.caller === 'quality-pass',
    );
    expect(asked).toHaveLength(3);
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it('tags in other scripts, with keys and values at their longest', async () => {
    // Prepare
    const tags = { équipe: 'recherche-日本語', [`k${'é'.repeat(127)}`]: 'v'.repeat(256) };

    // Act
    const harness = await runOptimization(optimizationInput({ tags }), 'unicode-tags');

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it('tags the run schema accepts never reach SageMaker in a form it refuses (a "#" in a key)', async () => {
    // Prepare: the run input takes any key of 1–128 characters; SageMaker's Tag pattern does not.
    const harness = new AwsHarness();
    const input = optimizationInput({ tags: { 'cost#center': '42' } });
    prepareAccount(harness, input);

    // Act: refused at planning, or sent in a form SageMaker accepts; either way no violation.
    await harness.runOptimization({ workflows, input, runId: 'hash-in-tag-key' });

    // Assert
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it('50 candidates, the most a run takes', async () => {
    // Prepare
    const candidates = Array.from({ length: 50 }, (_, index) => ({
      id: `candidate-${String(index).padStart(2, '0')}`,
      instanceType: index % 2 === 0 ? 'ml.c5.xlarge' : 'ml.m5.xlarge',
    }));

    // Act
    const harness = await runOptimization(
      optimizationInput({ candidates, maxConcurrentCandidates: 10, maxCostUsd: 1000 }),
      'fifty-candidates',
    );

    // Assert
    expect(harness.recorder.inputsOf('CreateEndpointCommand')).toHaveLength(50);
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it('every framework × version × target pair the examples compile for', async () => {
    // Prepare: each example's compiled candidates, alone, as one run per pair.
    const pairs = readdirSync(EXAMPLES_DIR)
      .filter((file) => file.endsWith('.json') && !file.startsWith('async-'))
      .flatMap((file) => {
        const input = example(file);
        // A shortlist request names no candidate to compile for.
        const listed = Array.isArray(input.candidates) ? input.candidates : [];
        const candidates = listed as { instanceType: string; compiledFor?: string }[];
        return candidates.flatMap((candidate) =>
          candidate.compiledFor === undefined ? [] : [{ file, model: input.model, candidate }],
        );
      });
    const targets: unknown[] = [];
    const violations: string[] = [];

    // Act
    for (const [index, pair] of pairs.entries()) {
      // The local example's `image: "local"` is the local model server: on AWS, Neo's image serves.
      const { image: _local, ...onAws }: Record<string, unknown> = {
        ...(pair.model as Record<string, unknown> | undefined),
        artifactUri: `s3://${ARTIFACTS_BUCKET}/models/m/model.tar.gz`,
      };
      const input = optimizationInput({
        model: onAws,
        compilation: { targets: [pair.candidate.compiledFor] },
        candidates: [
          {
            id: 'compiled',
            instanceType: pair.candidate.instanceType,
            compiledFor: pair.candidate.compiledFor,
          },
        ],
      });
      const harness = await runOptimization(input, `pair-${index}`);
      targets.push(
        ...harness.recorder
          .inputsOf('CreateCompilationJobCommand')
          .map((job) => (job as { OutputConfig: unknown }).OutputConfig),
      );
      violations.push(...harness.recorder.violationLines(), ...(await iamDenials(harness.recorder)));
    }

    // Assert
    expect(targets).toHaveLength(pairs.length);
    expect(violations).toEqual([]);
  });

  it('an existing endpoint of two instances, load tested as it is', async () => {
    // Prepare
    const input = example('existing-endpoint.json');

    // Act
    const harness = await runOptimization(input, 'existing-two-instances');

    // Assert
    expect(harness.recorder.inputsOf('DescribeEndpointCommand')).toContainEqual({
      EndpointName: 'prod-resnet50',
    });
    expect(harness.recorder.calls.filter((call) => call.command.startsWith('Delete'))).toEqual([]);
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });

  it('a reused async endpoint whose name is SageMaker’s longest (63 characters)', async () => {
    // Prepare
    const endpointName = `reused-${'a'.repeat(56)}`;
    const input = { ...example('async-existing-endpoint.json'), endpointName };

    // Act
    const harness = await runAsync(input, 'reused-long-name');

    // Assert
    expect(endpointName).toHaveLength(63);
    expect(harness.recorder.inputsOf('InvokeEndpointAsyncCommand')).toHaveLength(2);
    expect(harness.recorder.violationLines()).toEqual([]);
    expect(await iamDenials(harness.recorder)).toEqual([]);
  });
});

describe('the layer fails a request the service would refuse', () => {
  const TARGET_DEVICE_LINE =
    'CreateCompilationJob.OutputConfig.TargetDevice: not one of the values of the enum the service declares; ' +
    'given "ml_g5" (source: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html)';

  it('refuses a compilation for TargetDevice ml_g5 with SageMaker’s ValidationException', async () => {
    // Prepare
    const harness = new AwsHarness();

    // Act
    const attempt = harness.compiler.createCompilationJob({
      jobName: 'mso-planted-compile-ml-g5',
      target: 'ml_g5',
      framework: 'pytorch',
      frameworkVersion: '2.0',
      inputShape: { input0: [1, 3, 224, 224] },
      modelDataUrl: `s3://${ARTIFACTS_BUCKET}/models/m/model.tar.gz`,
      outputUri: `s3://${ARTIFACTS_BUCKET}/runs/planted/compiled/ml_g5/`,
      maxRuntimeSeconds: 900,
      tags: {},
    });

    // Assert
    await expect(attempt).rejects.toMatchObject({ name: 'ValidationException' });
    expect(harness.recorder.violationLines()).toEqual([TARGET_DEVICE_LINE]);
  });

  it('refuses a model tagged with a "#" in a key', async () => {
    // Prepare
    const harness = new AwsHarness();

    // Act
    const attempt = harness.host.createModel({
      modelName: 'mso-planted-model',
      image: '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference:2.0-cpu-py310',
      modelDataUrl: `s3://${ARTIFACTS_BUCKET}/models/m/model.tar.gz`,
      environment: {},
      tags: { 'team#1': 'research' },
    });

    // Assert
    await expect(attempt).rejects.toMatchObject({ name: 'ValidationException' });
    expect(harness.recorder.violationLines()).toEqual([
      'CreateModel.Tags[0].Key: does not match the pattern ^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$; given "team#1" ' +
        '(source: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_Tag.html)',
    ]);
  });

  it('refuses a request without a required member, and one with an unknown member', async () => {
    // Prepare
    const harness = new AwsHarness();
    const { CreateEndpointCommand } = await import('@aws-sdk/client-sagemaker');

    // Act
    const missing = harness.sagemakerClient.send(
      new CreateEndpointCommand({ EndpointName: 'mso-planted' } as never),
    );
    const unknown = harness.sagemakerClient.send(
      new CreateEndpointCommand({
        EndpointName: 'mso-planted',
        EndpointConfigName: 'mso-planted',
        Foo: 1,
      } as never),
    );

    // Assert
    await expect(missing).rejects.toMatchObject({
      name: 'ValidationException',
      message:
        "1 validation error detected: Value undefined at 'EndpointConfigName' failed to satisfy constraint: required member missing",
    });
    await expect(unknown).rejects.toMatchObject({ name: 'ValidationException' });
    expect(harness.recorder.violationLines()).toEqual([
      "CreateEndpoint.EndpointConfigName: required member missing; given undefined (source: the SDK's schema of com.amazonaws.sagemaker#CreateEndpointInput)",
      "CreateEndpoint.Foo: unknown member of CreateEndpointInput; given 1 (source: the SDK's schema of com.amazonaws.sagemaker#CreateEndpointInput)",
    ]);
  });
});
