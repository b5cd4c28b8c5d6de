import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { IAMClient, SimulatePrincipalPolicyCommand } from '@aws-sdk/client-iam';
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type * as PlanRunEntry from '../../lambdas/plan-run.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunPlan } from '../../core/contracts/optimization-state.js';
import { formatAsyncPlan, type PlannedAsyncRunSummary } from '../../core/report/async-plan-summary.js';
import { formatPlan } from '../../core/report/plan-summary.js';
import { validateAndPlan } from '../../core/steps/optimization/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../support/memory-object-store.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The plan-run entry end to end: middy and Powertools, the real S3 and Service Quotas adapters
 * and "Validate and plan" itself, only the SDK clients mocked, the event as API Gateway's Lambda
 * proxy integration sends it. The mocks record every call: a plan reads, and writes nothing.
 */

// What the RunApi construct sets when it routes POST /async-runs/plan (AsyncInference.planning);
// the bucket the examples name, so that every example plans as it would in a deployed stack.
setStepEnvironment({
  ARTIFACTS_BUCKET: 'your-artifacts-bucket',
  ASYNC_SUCCESS_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
  ASYNC_ERROR_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
  ASYNC_TOPICS_KEY_ARN: 'arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
  ASYNC_WAIT_TIMEOUT_SECONDS: '26100',
});

const MODEL_URI = 's3://user-models/cnn/model.onnx';
const PAYLOAD_URI = 's3://user-models/cnn/payload.json';
const IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/onnx-serving:1';
const runInput = {
  model: { artifactUri: MODEL_URI, framework: 'onnx', image: IMAGE, inputShape: { input: [1, 3, 32, 32] } },
  payload: { uri: PAYLOAD_URI },
  compilation: { targets: ['ml_c5'] },
  candidates: [
    { id: 'c5', instanceType: 'ml.c5.xlarge' },
    { id: 'c5-neo', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
  ],
  loadPlan: { steps: [1, 2], warmupSeconds: 5, stepDurationSeconds: 30 },
  sla: { p95LatencyMs: 100 },
};

const s3 = mockClient(S3Client);
const sagemaker = mockClient(SageMakerClient);
const serviceQuotas = mockClient(ServiceQuotasClient);
const pricing = mockClient(PricingClient);
const ec2 = mockClient(EC2Client);
let entry: typeof PlanRunEntry;

beforeAll(async () => {
  entry = await import('../../lambdas/plan-run.js');
});

beforeEach(() => {
  s3.reset();
  sagemaker.reset();
  serviceQuotas.reset();
  // No copy of the day's prices yet: the plan reads the Price List (and, read-only, keeps no copy).
  s3.on(HeadObjectCommand).callsFake((input: { Key?: string }) =>
    input.Key?.startsWith(PRICE_COPY_PREFIX) === true
      ? Promise.reject(
          Object.assign(new Error('Not Found'), { name: 'NotFound', $metadata: { httpStatusCode: 404 } }),
        )
      : Promise.resolve({ ContentLength: 7 }),
  );
  pricing.reset();
  pricing.on(GetProductsCommand).resolves({ FormatVersion: 'aws_v1', PriceList: [] });
  ec2.reset();
  ec2.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [] });
  serviceQuotas
    .on(ListServiceQuotasCommand)
    .resolves({ Quotas: [{ QuotaName: 'ml.c5.xlarge for endpoint usage', Value: 4 }] });
});

const PRICE_COPY_PREFIX = 'catalog/prices/';

/** The S3 calls for the run's own objects: those for the day's copy of the prices left out. */
function runObjectCallsOf(mock: typeof s3): [string, unknown][] {
  return callsOf(mock).filter(([, input]) => !(input as { Key?: string }).Key?.startsWith(PRICE_COPY_PREFIX));
}

/** Each call a mock recorded, as its command's name and input. */
function callsOf(mock: {
  calls(): readonly { args: readonly [{ constructor: { name: string }; input: unknown }] }[];
}): [string, unknown][] {
  return mock.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);
}

function planEvent(body: unknown, resource = '/runs/plan') {
  return {
    resource,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
    requestContext: {
      requestId: 'req-1',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      stage: 'v1',
    },
  };
}

describe('plan-run entry', () => {
  it('answers POST /runs/plan with the plan of "Validate and plan" over the Lambda’s region and bucket', async () => {
    // Prepare: the objects as HeadObject describes them (7 bytes each).
    const store = new MemoryObjectStore().seed(MODEL_URI, 'onnx by').seed(PAYLOAD_URI, '{"x":1}');
    const expected = await validateAndPlan(
      { runId: 'nightly', input: runInput },
      {
        store,
        artifactsBucket: 'your-artifacts-bucket',
        allowFileUris: false,
        servingRegion: 'us-east-1',
        // The Price List and EC2 as the mocks answer them: nothing priced, nothing described.
        market: {
          prices: { hostingPrices: () => Promise.resolve({}) },
          facts: { describeInstanceTypes: () => Promise.resolve([]) },
          keepPrices: false,
        },
        logger: silentLogger,
      },
    );

    // Act
    const result = await entry.handler(planEvent({ runId: 'nightly', input: runInput }), fakeContext());

    // Assert
    expect([result.statusCode, JSON.parse(result.body)]).toEqual([
      200,
      { runId: 'nightly', workflow: 'optimization', plan: JSON.parse(JSON.stringify(expected)) },
    ]);
  });

  it('reads the run’s objects and writes nothing, in S3 or anywhere else', async () => {
    // Act
    await entry.handler(planEvent({ runId: 'nightly', input: runInput }), fakeContext());

    // Assert
    const day = new Date().toISOString().slice(0, 10);
    expect({
      s3: callsOf(s3),
      sagemaker: callsOf(sagemaker),
      serviceQuotas: callsOf(serviceQuotas),
      pricing: callsOf(pricing).map(([command]) => command),
      ec2: callsOf(ec2).map(([command]) => command),
    }).toEqual({
      s3: [
        ['HeadObjectCommand', { Bucket: 'user-models', Key: 'cnn/model.onnx' }],
        ['HeadObjectCommand', { Bucket: 'user-models', Key: 'cnn/payload.json' }],
        [
          'HeadObjectCommand',
          { Bucket: 'your-artifacts-bucket', Key: `${PRICE_COPY_PREFIX}us-east-1/${day}.json` },
        ],
      ],
      sagemaker: [],
      serviceQuotas: [['ListServiceQuotasCommand', { ServiceCode: 'sagemaker', MaxResults: 100 }]],
      pricing: ['GetProductsCommand'],
      ec2: ['DescribeInstanceTypesCommand'],
    });
  });

  it('refuses a file:// URI with the first state’s issue, as JSON for the client', async () => {
    // Prepare
    const input = { ...runInput, payload: { uri: 'file:///home/me/payload.json' } };

    // Act
    const result = await entry.handler(planEvent({ runId: 'nightly', input }), fakeContext());

    // Assert
    expect([result.statusCode, JSON.parse(result.body)]).toEqual([
      400,
      {
        error: 'InvalidRunInput',
        message:
          'Invalid run input: payload.uri: got "file:///home/me/payload.json", expected an s3:// URI (file:// works in local mode only)',
        issues: [
          {
            field: 'payload.uri',
            given: '"file:///home/me/payload.json"',
            expected: 'an s3:// URI (file:// works in local mode only)',
          },
        ],
      },
    ]);
  });

  it('answers POST /async-runs/plan with the async plan and its inputs, writing no manifest', async () => {
    // Prepare: a gzip archive's first bytes, as the model-archive check reads them.
    s3.on(GetObjectCommand).resolves({
      Body: { transformToByteArray: () => Promise.resolve(new Uint8Array([0x1f, 0x8b, 8, 0])) } as never,
    });
    const input = {
      endpoint: {
        modelDataUrl: 's3://your-artifacts-bucket/models/cnn/model.tar.gz',
        framework: 'pytorch',
        frameworkVersion: '2.1',
        instanceType: 'ml.g5.xlarge',
      },
      inputs: ['s3://your-artifacts-bucket/inputs/in-1.json'],
    };

    // Act
    const result = await entry.handler(
      planEvent({ runId: 'batch', input }, '/async-runs/plan'),
      fakeContext(),
    );

    // Assert
    const body = JSON.parse(result.body) as {
      workflow: string;
      plan: { manifestUri: string };
      items: unknown;
    };
    expect([result.statusCode, body.workflow, body.plan.manifestUri, body.items]).toEqual([
      200,
      'async-inference',
      's3://your-artifacts-bucket/runs/batch/async/inputs.json',
      [{ itemIndex: 0, inputLocation: 's3://your-artifacts-bucket/inputs/in-1.json' }],
    ]);
    expect(runObjectCallsOf(s3)).toEqual([
      ['HeadObjectCommand', { Bucket: 'your-artifacts-bucket', Key: 'models/cnn/model.tar.gz' }],
      ['HeadObjectCommand', { Bucket: 'your-artifacts-bucket', Key: 'inputs/in-1.json' }],
      [
        'GetObjectCommand',
        { Bucket: 'your-artifacts-bucket', Key: 'models/cnn/model.tar.gz', Range: 'bytes=0-1' },
      ],
    ]);
    expect(callsOf(sagemaker)).toEqual([]);
  });

  /** The prompt examples/llm-gpu-vs-inferentia2.json streams: an LMI generate request with "stream": true. */
  const LLM_PROMPT = '{"inputs":"What is SageMaker?","parameters":{"max_new_tokens":128},"stream":true}';
  const OPENAI_CHAT_PROMPT =
    '{"messages":[{"role":"user","content":"What is SageMaker?"}],"max_tokens":128,"stream":true}';

  describe('plans every example of examples/ on AWS, creating and writing nothing', () => {
    const examples = readdirSync(join(process.cwd(), 'examples'))
      .filter((name) => name.endsWith('.json') && !name.startsWith('local'))
      // Inferentia2 compiles in us-east-2 only: planned below, in this test's us-east-1.
      .filter((name) => name !== 'gpu-vs-inferentia.json')
      .sort();
    const iam = mockClient(IAMClient);

    beforeEach(() => {
      // async-existing-endpoint.json's endpoint: async, notifying this stack's topics, its role allowed.
      iam.reset();
      iam.on(SimulatePrincipalPolicyCommand).resolves({ EvaluationResults: [] });
      sagemaker.on(DescribeEndpointCommand).resolves({
        EndpointName: 'my-async-endpoint',
        EndpointStatus: 'InService',
        EndpointConfigName: 'my-async-config',
        ProductionVariants: [{ VariantName: 'AllTraffic', CurrentInstanceCount: 1 }],
      });
      sagemaker.on(DescribeEndpointConfigCommand).resolves({
        ProductionVariants: [
          { VariantName: 'AllTraffic', ModelName: 'my-model', InstanceType: 'ml.g5.xlarge' },
        ],
        AsyncInferenceConfig: {
          OutputConfig: {
            S3OutputPath: 's3://your-artifacts-bucket/runs/shared/async/output/',
            NotificationConfig: {
              SuccessTopic: 'arn:aws:sns:us-east-1:123456789012:mso-async-success',
              ErrorTopic: 'arn:aws:sns:us-east-1:123456789012:mso-async-error',
            },
          },
        },
      });
      sagemaker
        .on(DescribeModelCommand)
        .resolves({ ExecutionRoleArn: 'arn:aws:iam::123456789012:role/team-endpoint' });
    });

    it.each(examples)('%s', async (name) => {
      // Prepare: every object exists; archives start as gzip; an input prefix lists one input.
      s3.on(GetObjectCommand).resolves({
        Body: { transformToByteArray: () => Promise.resolve(new Uint8Array([0x1f, 0x8b, 8, 0])) } as never,
      });
      s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'inputs/2026-11-22/doc-1.json', Size: 7 }] });
      // A streaming plan reads its prompt's shape: a JSON request in each example's format.
      for (const [key, body] of [
        ['models/qwen2.5-1.5b-instruct/prompt.json', LLM_PROMPT],
        ['models/qwen2.5-72b-instruct/prompt.json', LLM_PROMPT],
        ['models/qwen2.5-7b-instruct/chat.json', OPENAI_CHAT_PROMPT],
      ] as const) {
        s3.on(GetObjectCommand, { Key: key }).resolves({
          Body: { transformToByteArray: () => Promise.resolve(new TextEncoder().encode(body)) } as never,
        });
      }
      const input: unknown = JSON.parse(readFileSync(join(process.cwd(), 'examples', name), 'utf8'));
      const resource = name.startsWith('async') ? '/async-runs/plan' : '/runs/plan';

      // Act
      const result = await entry.handler(planEvent({ runId: 'example', input }, resource), fakeContext());

      // Assert
      const body = JSON.parse(result.body) as { workflow: string; plan: RunPlan };
      expect([result.statusCode, body.workflow]).toEqual([
        200,
        resource === '/runs/plan' ? 'optimization' : 'async-inference',
      ]);
      const text =
        body.workflow === 'optimization'
          ? formatPlan({ plan: body.plan, runCommand: 'start' })
          : formatAsyncPlan({
              planned: body as unknown as PlannedAsyncRunSummary,
              runCommand: 'start',
              displayUri: (uri) => uri,
            });
      expect(text).toMatch(/^Estimated cost on AWS: (\$\d+\.\d\d|at most \$\d+\.\d\d|\$0\.00 added)/m);
      expect(text).toMatch(
        /^Estimated duration on AWS: (about|at most) \d+(\.\d)? (s|min|h) .*; (at most )?\d+(\.\d)? (s|min|h) if every /m,
      );
      // bert-int64-gpu.json's p99-only SLA printed "p95 ≤ undefined ms".
      expect(text).not.toContain('undefined');
      // Said by the local CLIs only.
      expect(text).not.toContain('a local run costs nothing');
      const writes = [...callsOf(s3), ...callsOf(sagemaker), ...callsOf(iam)].filter(
        ([command]) => !/^(Head|Get|List|Describe|Simulate)/.test(command),
      );
      expect(writes).toEqual([]);
    });

    // What each example's plan says it costs and lasts on AWS (async-batch.json's prefix lists one input).
    const estimates: [string, string, string][] = [
      [
        'async-batch.json',
        'Estimated cost on AWS: at most $1.03 (ml.g5.xlarge at $1.408/h)',
        'Estimated duration on AWS: at most 27 min as assumed above; 8 h if every wait takes its whole deadline (each input 26100 s)',
      ],
      [
        'async-benchmark.json',
        'Estimated cost on AWS: at most $5.37 (ml.c5.xlarge at $0.204/h)',
        'Estimated duration on AWS: at most 7.6 h as assumed above; 9.2 h if every wait takes its whole deadline (each input 26100 s)',
      ],
      [
        'async-existing-endpoint.json',
        'Estimated cost on AWS: $0.00 added (a reused endpoint)',
        'Estimated duration on AWS: at most 60 min as assumed above; 7.3 h if every wait takes its whole deadline (each input 26100 s)',
      ],
      [
        'bert-int64-gpu.json',
        'Estimated cost on AWS: $0.79 of maxCostUsd $15.00',
        'Estimated duration on AWS: about 59 min as assumed above (2 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 2.7 h if every endpoint and job takes its whole deadline',
      ],
      [
        'container-settings-sweep.json',
        'Estimated cost on AWS: $0.48 of maxCostUsd $3.00',
        'Estimated duration on AWS: about 37 min as assumed above (2 waves of endpoints); at most 2.1 h if every endpoint and job takes its whole deadline',
      ],
      [
        'cpu-intel-vs-graviton.json',
        'Estimated cost on AWS: $0.24 of maxCostUsd $5.00',
        'Estimated duration on AWS: about 40 min as assumed above (2 waves of endpoints); at most 2.2 h if every endpoint and job takes its whole deadline',
      ],
      [
        'cpu-sweep.json',
        'Estimated cost on AWS: $0.43 of maxCostUsd $5.00',
        'Estimated duration on AWS: about 58 min as assumed above (2 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 2.7 h if every endpoint and job takes its whole deadline',
      ],
      [
        'existing-endpoint.json',
        'Estimated cost on AWS: $0.01 (no maxCostUsd set)',
        'Estimated duration on AWS: about 8 min as assumed above (nothing deployed); at most 65 min if every endpoint and job takes its whole deadline',
      ],
      [
        'huggingface.json',
        'Estimated cost on AWS: $0.50 of maxCostUsd $5.00',
        'Estimated duration on AWS: about 40 min as assumed above (2 waves of endpoints); at most 2.2 h if every endpoint and job takes its whole deadline',
      ],
      [
        'llm-70b-tensor-parallel.json',
        'Estimated cost on AWS: $25.19 of maxCostUsd $60.00',
        'Estimated duration on AWS: about 26 min as assumed above (one wave of endpoints); at most 73 min if every endpoint and job takes its whole deadline',
      ],
      [
        'llm-g6e-vs-g6.json',
        'Estimated cost on AWS: $2.13 of maxCostUsd $8.00',
        'Estimated duration on AWS: about 45 min as assumed above (2 waves of endpoints); at most 2.3 h if every endpoint and job takes its whole deadline',
      ],
      [
        'llm-gpu-vs-inferentia2.json',
        'Estimated cost on AWS: $1.87 of maxCostUsd $5.00',
        'Estimated duration on AWS: about 45 min as assumed above (2 waves of endpoints); at most 2.3 h if every endpoint and job takes its whole deadline',
      ],
      [
        'payload-mix.json',
        'Estimated cost on AWS: $0.35 of maxCostUsd $5.00',
        'Estimated duration on AWS: about 20 min as assumed above (one wave of endpoints); at most 65 min if every endpoint and job takes its whole deadline',
      ],
      [
        'shortlist-cpu-gpu.json',
        'Estimated cost on AWS: $0.39 of maxCostUsd $5.00',
        'Estimated duration on AWS: about 40 min as assumed above (2 waves of endpoints); at most 2.2 h if every endpoint and job takes its whole deadline',
      ],
    ];

    it('has an estimate below for every example planned above', () => {
      // Assert
      expect(estimates.map(([name]) => name)).toEqual(examples);
    });

    it.each(estimates)('%s: the cost and duration lines', async (name, cost, duration) => {
      // Prepare
      s3.on(GetObjectCommand).resolves({
        Body: { transformToByteArray: () => Promise.resolve(new Uint8Array([0x1f, 0x8b, 8, 0])) } as never,
      });
      s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'inputs/2026-11-22/doc-1.json', Size: 7 }] });
      // A streaming plan reads its prompt's shape: a JSON request in each example's format.
      for (const [key, body] of [
        ['models/qwen2.5-1.5b-instruct/prompt.json', LLM_PROMPT],
        ['models/qwen2.5-72b-instruct/prompt.json', LLM_PROMPT],
        ['models/qwen2.5-7b-instruct/chat.json', OPENAI_CHAT_PROMPT],
      ] as const) {
        s3.on(GetObjectCommand, { Key: key }).resolves({
          Body: { transformToByteArray: () => Promise.resolve(new TextEncoder().encode(body)) } as never,
        });
      }
      const input: unknown = JSON.parse(readFileSync(join(process.cwd(), 'examples', name), 'utf8'));
      const resource = name.startsWith('async') ? '/async-runs/plan' : '/runs/plan';

      // Act
      const result = await entry.handler(planEvent({ runId: 'example', input }, resource), fakeContext());

      // Assert
      const body = JSON.parse(result.body) as { workflow: string; plan: RunPlan };
      const text =
        body.workflow === 'optimization'
          ? formatPlan({ plan: body.plan, runCommand: 'start' })
          : formatAsyncPlan({
              planned: body as unknown as PlannedAsyncRunSummary,
              runCommand: 'start',
              displayUri: (uri) => uri,
            });
      expect(text.split('\n').filter((line) => line.startsWith('Estimated '))).toEqual([cost, duration]);
    });

    it('huggingface.json plans the Hub model with no packaging, reading only its payload', async () => {
      // Prepare
      const input: unknown = JSON.parse(
        readFileSync(join(process.cwd(), 'examples', 'huggingface.json'), 'utf8'),
      );

      // Act
      const result = await entry.handler(planEvent({ runId: 'example', input }), fakeContext());

      // Assert
      const body = JSON.parse(result.body) as { plan: RunPlan };
      expect([result.statusCode, body.plan.model?.needsPackaging, body.plan.model?.packagedUri]).toEqual([
        200,
        false,
        undefined,
      ]);
      expect(runObjectCallsOf(s3)).toEqual([
        [
          'HeadObjectCommand',
          { Bucket: 'your-artifacts-bucket', Key: 'models/distilbert-sst2/payload.json' },
        ],
      ]);
      const text = formatPlan({ plan: body.plan, runCommand: 'start' });
      expect(text).toMatch(/^Estimated cost on AWS: \$\d+\.\d\d/m);
      expect(text).toMatch(/^Load plan: .* about \d+ s of load tests$/m);
    });

    it('gpu-vs-inferentia.json, planned in us-east-2 by "Validate and plan", prints its cost and duration', async () => {
      // Prepare: the region its ml_inf2 target compiles in (the Lambda here runs in us-east-1).
      const input: unknown = JSON.parse(
        readFileSync(join(process.cwd(), 'examples', 'gpu-vs-inferentia.json'), 'utf8'),
      );
      const store = new MemoryObjectStore()
        .seed('s3://your-artifacts-bucket/models/resnet50-pt113/model.pt', 'weights')
        .seed('s3://your-artifacts-bucket/models/resnet50-pt113/payload.json', '{"x":1}');

      // Act
      const plan = await validateAndPlan(
        { runId: 'example', input },
        {
          store,
          artifactsBucket: 'your-artifacts-bucket',
          allowFileUris: false,
          servingRegion: 'us-east-2',
          logger: silentLogger,
        },
      );

      // Assert
      const text = formatPlan({ plan, runCommand: 'start' });
      expect(text.split('\n').filter((line) => line.startsWith('Estimated '))).toEqual([
        'Estimated cost on AWS: $2.09 of maxCostUsd $20.00',
        'Estimated duration on AWS: about 86 min as assumed above (2 waves of endpoints, compilation jobs to their maxRuntimeSeconds); at most 4.3 h if every endpoint and job takes its whole deadline',
      ]);
    });

    it('gpu-vs-inferentia.json is refused in us-east-1 with the Neo region its ml_inf2 target needs', async () => {
      // Prepare
      const input: unknown = JSON.parse(
        readFileSync(join(process.cwd(), 'examples', 'gpu-vs-inferentia.json'), 'utf8'),
      );

      // Act
      const result = await entry.handler(planEvent({ runId: 'example', input }), fakeContext());

      // Assert
      expect([result.statusCode, (JSON.parse(result.body) as { issues: unknown }).issues]).toEqual([
        400,
        [
          {
            field: 'compilation.targets[1]',
            given: '"ml_inf2" in us-east-1',
            expected:
              'a target Neo compiles for in us-east-1: ml_inf2 compiles only in us-east-2 (SageMaker API reference, https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html); deploy the stack there or drop ml_inf2',
          },
        ],
      ]);
    });
  });
});
