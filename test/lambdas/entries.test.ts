import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeInstanceTypesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import {
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  type PutObjectCommandInput,
  S3Client,
} from '@aws-sdk/client-s3';
import {
  CreateCompilationJobCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DescribeCompilationJobCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  ListCompilationJobsCommand,
  ListOptimizationJobsCommand,
  ListEndpointConfigsCommand,
  ListEndpointsCommand,
  ListModelsCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mockClient } from 'aws-sdk-client-mock';
import { InvalidRunInputError } from '../../core/contracts/errors.js';
import type {
  CandidateOutcome,
  PlannedCandidate,
  RunPlan,
  WorkerOutcome,
} from '../../core/contracts/optimization-state.js';
import {
  createLatencyHistogram,
  encodeHistogram,
  recordLatencyUs,
  type WorkerResult,
} from '../../core/load-test/index.js';
import type { Report } from '../../core/report/report.js';
import { proofCandidate, proofLoadPlan } from '../../core/serving/prove-target.js';
import { validateAndPlan } from '../../core/steps/optimization/validate-and-plan.js';
import { plannedCandidate, reportFrom } from '../../bench/fixtures/sample-report.js';
import { MemoryObjectStore, silentLogger } from '../support/memory-object-store.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * Each entry end to end: the middy handler with a Lambda context, the real adapters and core, and
 * only the AWS clients mocked. Entries read their environment when imported, so it is set first.
 */

const ROLE_ARN = 'arn:aws:iam::123456789012:role/mso-sagemaker-execution';
const IMAGE = '123456789012.dkr.ecr.us-east-1.amazonaws.com/onnx-serving:1';
const MODEL_URI = 's3://user-models/cnn/model.onnx';
const PAYLOAD_URI = 's3://user-models/cnn/payload.json';
const RUN_ID = 'entries-test';

setStepEnvironment({
  SAGEMAKER_EXECUTION_ROLE_ARN: ROLE_ARN,
  ENDPOINT_POLL_SECONDS: '5',
  COMPILATION_POLL_SECONDS: '20',
  LOAD_START_DELAY_SECONDS: '3',
});

const s3 = mockClient(S3Client);
const sagemaker = mockClient(SageMakerClient);
// Recommend reads endpoint metrics: no test may reach the real CloudWatch.
const cloudwatch = mockClient(CloudWatchClient);
// Validate and plan reads prices and instance facts: no test may reach the real services.
const pricing = mockClient(PricingClient);
const ec2 = mockClient(EC2Client);

/** One Price List product as GetProducts returns it: a JSON string. */
const C5_XLARGE_HOSTING = JSON.stringify({
  product: {
    productFamily: 'ML Instance',
    attributes: { regionCode: 'us-east-1', instanceName: 'ml.c5.xlarge', platoinstancetype: 'Hosting' },
  },
  terms: {
    OnDemand: {
      'SKU.TERM': {
        priceDimensions: { 'SKU.TERM.RATE': { unit: 'Hrs', pricePerUnit: { USD: '0.2100000000' } } },
      },
    },
  },
});

const runInput = {
  model: { artifactUri: MODEL_URI, framework: 'onnx', image: IMAGE, inputShape: { input: [1, 3, 32, 32] } },
  payload: { uri: PAYLOAD_URI },
  compilation: { targets: ['ml_c5'] },
  candidates: [
    { id: 'c5', instanceType: 'ml.c5.xlarge', initialInstanceCount: 2 },
    { id: 'c5-neo', instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' },
    { id: 'sls', serverless: { memorySizeMb: 2048, maxConcurrency: 5 } },
  ],
  // One measurement: the aggregation then ends the load test (repeats are rounds, tested apart).
  loadPlan: { steps: [1], warmupSeconds: 0, stepDurationSeconds: 2, maxRequestsPerStep: 20, repeats: 1 },
  sla: { p95LatencyMs: 100 },
};

let plan: RunPlan;
let realtime: PlannedCandidate;

function candidate(id: string): PlannedCandidate {
  const found = plan.candidates.find((c) => c.id === id);
  if (found === undefined) throw new Error(`no candidate ${id} in the plan`);
  return found;
}

function putInputs(): PutObjectCommandInput[] {
  return s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
}

/** The part of the SDK's streaming body the store uses. */
function bodyOf(bytes: Uint8Array): any {
  return { transformToByteArray: () => Promise.resolve(bytes) };
}

beforeAll(async () => {
  const store = new MemoryObjectStore().seed(MODEL_URI, 'onnx bytes').seed(PAYLOAD_URI, '{"x":1}');
  plan = await validateAndPlan(
    { runId: RUN_ID, input: runInput },
    { store, artifactsBucket: 'mso-artifacts', allowFileUris: false, logger: silentLogger },
  );
  realtime = candidate('c5');
});

beforeEach(() => {
  s3.reset();
  sagemaker.reset();
  cloudwatch.reset();
});

describe('validate-and-plan entry', () => {
  it('plans the run after checking the inputs in S3, into the bucket from ARTIFACTS_BUCKET', async () => {
    // Arrange
    s3.on(HeadObjectCommand).resolves({ ContentLength: 7 });

    s3.on(HeadObjectCommand, { Bucket: 'mso-artifacts' }).rejects(
      Object.assign(new Error('Not Found'), { name: 'NotFound', $metadata: { httpStatusCode: 404 } }),
    );
    pricing.reset();
    pricing.on(GetProductsCommand).resolves({ FormatVersion: 'aws_v1', PriceList: [C5_XLARGE_HOSTING] });
    ec2.reset();
    ec2.on(DescribeInstanceTypesCommand).resolves({
      InstanceTypes: [
        { InstanceType: 'c5.xlarge', VCpuInfo: { DefaultVCpus: 4 }, MemoryInfo: { SizeInMiB: 8192 } },
      ],
    });
    const { handler } = await import('../../lambdas/validate-and-plan.js');

    // Act
    const result = await handler({ runId: RUN_ID, input: runInput }, fakeContext());

    // Assert
    expect(result.artifactsBucket).toBe('mso-artifacts');
    expect(result.runPrefixUri).toBe(`s3://mso-artifacts/runs/${RUN_ID}/`);
    expect(
      s3
        .commandCalls(HeadObjectCommand)
        .map((call) => call.args[0].input)
        .filter((input) => input.Bucket === 'user-models'),
    ).toEqual([
      { Bucket: 'user-models', Key: 'cnn/model.onnx' },
      { Bucket: 'user-models', Key: 'cnn/payload.json' },
    ]);
    expect(pricing.commandCalls(GetProductsCommand).map((call) => call.args[0].input)).toEqual([
      {
        ServiceCode: 'AmazonSageMaker',
        FormatVersion: 'aws_v1',
        Filters: [
          { Type: 'TERM_MATCH', Field: 'regionCode', Value: 'us-east-1' },
          { Type: 'TERM_MATCH', Field: 'platoinstancetype', Value: 'Hosting' },
        ],
        MaxResults: 100,
      },
    ]);
    expect(ec2.commandCalls(DescribeInstanceTypesCommand).map((call) => call.args[0].input)).toEqual([
      { Filters: [{ Name: 'instance-type', Values: ['c5.xlarge'] }], MaxResults: 100 },
    ]);
    expect(result.estimate.prices).toMatchObject({ source: 'price-list-api', region: 'us-east-1' });
    expect(result.candidates.find((c) => c.id === 'c5')).toMatchObject({
      usdPerHour: 0.21,
      priceSource: 'price-list',
    });
    expect(putInputs().map((input) => `${input.Bucket}/${input.Key}`)).toEqual([
      `mso-artifacts/catalog/prices/us-east-1/${new Date().toISOString().slice(0, 10)}.json`,
    ]);
  });

  it('fails when the input names a file:// URI, which only local mode can read', async () => {
    const { handler } = await import('../../lambdas/validate-and-plan.js');
    const input = { ...runInput, payload: { uri: 'file:///home/me/payload.json' } };

    const error = await handler({ runId: RUN_ID, input }, fakeContext()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(InvalidRunInputError);
    expect((error as Error).name).toBe('InvalidRunInputError');
  });
});

describe('package-model entry', () => {
  it('writes model.tar.gz and its checksum under the run prefix', async () => {
    s3.on(GetObjectCommand, { Bucket: 'user-models', Key: 'cnn/model.onnx' }).resolves({
      Body: bodyOf(new TextEncoder().encode('onnx bytes')),
    });
    s3.on(HeadObjectCommand).rejects(
      new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } }),
    );
    s3.on(PutObjectCommand).resolves({});
    const { handler } = await import('../../lambdas/package-model.js');

    const packaged = await handler({ plan }, fakeContext());

    expect(packaged).toMatchObject({
      modelDataUrl: `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`,
      reused: false,
    });
    expect(putInputs().map(({ Bucket, Key, ContentType }) => ({ Bucket, Key, ContentType }))).toEqual([
      { Bucket: 'mso-artifacts', Key: `runs/${RUN_ID}/model/model.tar.gz`, ContentType: 'application/gzip' },
      {
        Bucket: 'mso-artifacts',
        Key: `runs/${RUN_ID}/model/model.tar.gz.sha256`,
        ContentType: 'application/json',
      },
    ]);
  });
});

describe('compilation entries', () => {
  const packagedModel = {
    modelDataUrl: `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`,
    reused: false,
  };

  it('start-compilation creates the Neo job with the role from SAGEMAKER_EXECUTION_ROLE_ARN and polls per COMPILATION_POLL_SECONDS', async () => {
    sagemaker.on(CreateCompilationJobCommand).resolves({ CompilationJobArn: 'arn:job' });
    const { handler } = await import('../../lambdas/start-compilation.js');
    const compilation = plan.compilations[0];
    if (compilation === undefined) throw new Error('the plan has no compilation');

    const state = await handler({ plan, compilation, packagedModel }, fakeContext());

    expect(state).toMatchObject({ jobName: compilation.jobName, status: 'IN_PROGRESS', waitSeconds: 20 });
    expect(sagemaker.commandCalls(CreateCompilationJobCommand)[0]?.args[0].input).toMatchObject({
      CompilationJobName: compilation.jobName,
      RoleArn: ROLE_ARN,
      InputConfig: {
        S3Uri: packagedModel.modelDataUrl,
        Framework: 'ONNX',
        DataInputConfig: '{"input":[1,3,32,32]}',
      },
      OutputConfig: {
        S3OutputLocation: `s3://mso-artifacts/runs/${RUN_ID}/compiled/ml_c5/`,
        TargetDevice: 'ml_c5',
      },
      StoppingCondition: { MaxRuntimeInSeconds: plan.compilationMaxRuntimeSeconds },
    });
  });

  it('check-compilation reports a completed job with its artifact', async () => {
    sagemaker.on(DescribeCompilationJobCommand).resolves({
      CompilationJobStatus: 'COMPLETED',
      FailureReason: '',
      ModelArtifacts: {
        S3ModelArtifacts: `s3://mso-artifacts/runs/${RUN_ID}/compiled/ml_c5/model-ml_c5.tar.gz`,
      },
    });
    const { handler } = await import('../../lambdas/check-compilation.js');

    const state = await handler(
      {
        target: 'ml_c5',
        jobName: 'job',
        status: 'IN_PROGRESS',
        waitSeconds: 20,
        deadlineEpochMs: Date.now() + 60_000,
      },
      fakeContext(),
    );

    expect(state).toMatchObject({
      status: 'COMPLETED',
      artifactUri: `s3://mso-artifacts/runs/${RUN_ID}/compiled/ml_c5/model-ml_c5.tar.gz`,
    });
  });
});

describe('deploy-candidate entry', () => {
  it('creates the model, endpoint config and endpoint of a planned candidate', async () => {
    // Arrange
    sagemaker.on(CreateModelCommand).resolves({});
    sagemaker.on(CreateEndpointConfigCommand).resolves({});
    sagemaker.on(CreateEndpointCommand).resolves({});
    const { handler } = await import('../../lambdas/deploy-candidate.js');
    const modelDataUrl = `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`;

    // Act
    const deployment = await handler(
      { plan, candidate: realtime, packagedModel: { modelDataUrl, reused: false }, compilations: [] },
      fakeContext(),
    );

    // Assert
    expect(deployment).toMatchObject({ candidateId: 'c5', status: 'DEPLOYING', waitSeconds: 5 });
    const tags = [
      { Key: 'mso:candidate-id', Value: 'c5' },
      { Key: 'mso:project', Value: 'model-serving-optimizer' },
      { Key: 'mso:run-id', Value: RUN_ID },
    ];
    expect(sagemaker.commandCalls(CreateModelCommand)[0]?.args[0].input).toEqual({
      ModelName: realtime.modelName,
      ExecutionRoleArn: ROLE_ARN,
      PrimaryContainer: { Image: IMAGE, ModelDataUrl: modelDataUrl, Environment: {} },
      Tags: tags,
    });
    expect(sagemaker.commandCalls(CreateEndpointConfigCommand)[0]?.args[0].input).toEqual({
      EndpointConfigName: realtime.endpointConfigName,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: realtime.modelName,
          InstanceType: 'ml.c5.xlarge',
          InitialInstanceCount: 2,
        },
      ],
      Tags: tags,
    });
    expect(sagemaker.commandCalls(CreateEndpointCommand)[0]?.args[0].input).toEqual({
      EndpointName: realtime.endpointName,
      EndpointConfigName: realtime.endpointConfigName,
      Tags: tags,
    });
  });
});

describe('deploy-candidate entry: routing strategy', () => {
  it('creates the endpoint config with the candidate’s routingStrategy as the variant’s RoutingConfig', async () => {
    // Arrange
    sagemaker.on(CreateModelCommand).resolves({});
    sagemaker.on(CreateEndpointConfigCommand).resolves({});
    sagemaker.on(CreateEndpointCommand).resolves({});
    const { handler } = await import('../../lambdas/deploy-candidate.js');
    const routed = { ...realtime, routingStrategy: 'LEAST_OUTSTANDING_REQUESTS' as const };

    // Act
    await handler(
      {
        plan,
        candidate: routed,
        packagedModel: {
          modelDataUrl: `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`,
          reused: false,
        },
        compilations: [],
      },
      fakeContext(),
    );

    // Assert
    expect(sagemaker.commandCalls(CreateEndpointConfigCommand)[0]?.args[0].input).toEqual({
      EndpointConfigName: routed.endpointConfigName,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: routed.modelName,
          InstanceType: 'ml.c5.xlarge',
          InitialInstanceCount: 2,
          RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        },
      ],
      Tags: [
        { Key: 'mso:candidate-id', Value: 'c5' },
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: RUN_ID },
      ],
    });
  });
});

describe('deploy-candidate entry: compiled candidate', () => {
  it('creates the model on the image the compilation job named, not on model.image', async () => {
    // Arrange
    sagemaker.on(CreateModelCommand).resolves({});
    sagemaker.on(CreateEndpointConfigCommand).resolves({});
    sagemaker.on(CreateEndpointCommand).resolves({});
    const { handler } = await import('../../lambdas/deploy-candidate.js');
    const compiled = candidate('c5-neo');
    const artifactUri = `s3://mso-artifacts/runs/${RUN_ID}/compiled/ml_c5/model-ml_c5.tar.gz`;
    const neoImage = '785573368785.dkr.ecr.us-east-1.amazonaws.com/sagemaker-neo-onnx:1.5.0-cpu-py3';

    // Act
    await handler(
      {
        plan,
        candidate: compiled,
        packagedModel: {
          modelDataUrl: `s3://mso-artifacts/runs/${RUN_ID}/model/model.tar.gz`,
          reused: false,
        },
        compilations: [
          {
            target: 'ml_c5',
            jobName: 'job',
            status: 'COMPLETED',
            waitSeconds: 20,
            deadlineEpochMs: 0,
            artifactUri,
            inferenceImage: neoImage,
          },
        ],
      },
      fakeContext(),
    );

    // Assert
    expect(sagemaker.commandCalls(CreateModelCommand)[0]?.args[0].input).toEqual({
      ModelName: compiled.modelName,
      ExecutionRoleArn: ROLE_ARN,
      PrimaryContainer: { Image: neoImage, ModelDataUrl: artifactUri, Environment: {} },
      Tags: [
        { Key: 'mso:candidate-id', Value: 'c5-neo' },
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: RUN_ID },
      ],
    });
  });
});

describe('deploy-candidate entry: Hugging Face Hub model', () => {
  it('creates the model on the Hugging Face DLC with the Hub settings as environment and no ModelDataUrl', async () => {
    // Arrange: a Hub model plans no packaging, so "Package model" gives no model data.
    const hubPlan = await validateAndPlan(
      {
        runId: RUN_ID,
        input: {
          model: {
            framework: 'huggingface',
            frameworkVersion: '4.49.0',
            pytorchVersion: '2.6.0',
            hub: { modelId: 'distilbert/distilbert-base-uncased', task: 'fill-mask', revision: 'main' },
            environment: { SAGEMAKER_MODEL_SERVER_WORKERS: '2' },
          },
          payload: { uri: PAYLOAD_URI },
          candidates: [{ id: 'g4dn', instanceType: 'ml.g4dn.xlarge' }],
          loadPlan: { steps: [1] },
          sla: { p95LatencyMs: 100 },
        },
      },
      {
        store: new MemoryObjectStore().seed(PAYLOAD_URI, '{"inputs":"Paris is the [MASK] of France."}'),
        artifactsBucket: 'mso-artifacts',
        allowFileUris: false,
        servingRegion: 'us-east-1',
        logger: silentLogger,
      },
    );
    const hubCandidate = hubPlan.candidates[0];
    if (hubCandidate === undefined) throw new Error('the plan has no candidate');
    sagemaker.on(CreateModelCommand).resolves({});
    sagemaker.on(CreateEndpointConfigCommand).resolves({});
    sagemaker.on(CreateEndpointCommand).resolves({});
    const { handler } = await import('../../lambdas/deploy-candidate.js');

    // Act
    await handler(
      { plan: hubPlan, candidate: hubCandidate, packagedModel: { reused: true }, compilations: [] },
      fakeContext(),
    );

    // Assert
    expect(sagemaker.commandCalls(CreateModelCommand)[0]?.args[0].input).toEqual({
      ModelName: hubCandidate.modelName,
      ExecutionRoleArn: ROLE_ARN,
      PrimaryContainer: {
        Image:
          '763104351884.dkr.ecr.us-east-1.amazonaws.com/huggingface-pytorch-inference:2.6.0-transformers4.49.0-gpu-py312-cu124-ubuntu22.04',
        Environment: {
          HF_MODEL_ID: 'distilbert/distilbert-base-uncased',
          HF_TASK: 'fill-mask',
          HF_MODEL_REVISION: 'main',
          SAGEMAKER_MODEL_SERVER_WORKERS: '2',
        },
      },
      Tags: [
        { Key: 'mso:candidate-id', Value: 'g4dn' },
        { Key: 'mso:project', Value: 'model-serving-optimizer' },
        { Key: 'mso:run-id', Value: RUN_ID },
      ],
    });
  });
});

describe('check-endpoint entry', () => {
  it('reports an in-service endpoint with its instance type and the shared load start', async () => {
    sagemaker.on(DescribeEndpointCommand).resolves({
      EndpointStatus: 'InService',
      EndpointConfigName: realtime.endpointConfigName,
      ProductionVariants: [{ VariantName: 'AllTraffic', CurrentInstanceCount: 2 }],
    });
    sagemaker
      .on(DescribeEndpointConfigCommand)
      .resolves({ ProductionVariants: [{ VariantName: 'AllTraffic', InstanceType: 'ml.c5.xlarge' }] });
    const { handler } = await import('../../lambdas/check-endpoint.js');
    const before = Date.now();

    const state = await handler(
      {
        plan,
        deployment: {
          candidateId: 'c5',
          endpointName: realtime.endpointName,
          status: 'DEPLOYING',
          waitSeconds: 5,
          deadlineEpochMs: before + 600_000,
        },
      },
      fakeContext(),
    );

    expect(state).toMatchObject({ status: 'IN_SERVICE', instanceType: 'ml.c5.xlarge', instanceCount: 2 });
    // LOAD_START_DELAY_SECONDS=3 from the environment.
    expect(state.loadStartEpochMs).toBeGreaterThanOrEqual(before + 3000);
    expect(state.loadStartEpochMs).toBeLessThan(Date.now() + 3000 + 1);
  });
});

describe('load-test entries', () => {
  let workerResult: Uint8Array | undefined;
  let worker: WorkerOutcome;
  /**
   * The load worker's transport calls the SDK's resolved handler rather than `client.send`, which
   * the client mocks replace: a loopback stand-in of the runtime endpoint (the SDK's
   * AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME) records what it sends instead.
   */
  const invocations: { path: string; contentType: string | undefined; body: string }[] = [];
  const runtimeServer = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      invocations.push({ path: request.url ?? '', contentType: request.headers['content-type'], body });
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => runtimeServer.listen(0, '127.0.0.1', resolve));
    const { port } = runtimeServer.address() as AddressInfo;
    process.env.AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME = `http://127.0.0.1:${port}`;
    process.env.AWS_ACCESS_KEY_ID ??= 'AKIDEXAMPLE';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'secret';
  });

  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME;
    runtimeServer.closeAllConnections();
    await new Promise((resolve) => runtimeServer.close(resolve));
  });

  it('run-load-worker invokes the endpoint and stores its result in S3', async () => {
    // Arrange
    s3.on(GetObjectCommand).resolves({ Body: bodyOf(new TextEncoder().encode('{"x":1}')) });
    s3.on(PutObjectCommand).callsFake((input: PutObjectCommandInput) => {
      workerResult = input.Body as Uint8Array;
      return {};
    });
    invocations.length = 0;
    const { handler } = await import('../../lambdas/run-load-worker.js');

    // Act: a window the 20 requests of maxRequestsPerStep cannot outlast on a busy machine (it ends
    // when they are measured), so the count does not depend on how fast the CPU serves them.
    const unmissable = { ...plan, loadPlan: { ...plan.loadPlan, stepDurationSeconds: 60 } };
    worker = await handler(
      {
        plan: unmissable,
        candidateId: 'c5',
        deployment: { endpointName: realtime.endpointName },
        workerIndex: 0,
      },
      fakeContext(120_000),
    );

    // Assert
    expect(worker.resultUri).toBe(`s3://mso-artifacts/runs/${RUN_ID}/load-tests/c5/worker-0/segment-0.json`);
    expect(invocations[0]).toEqual({
      path: `/endpoints/${realtime.endpointName}/invocations`,
      contentType: 'application/json',
      body: '{"x":1}',
    });
    expect(invocations).toHaveLength(20);
  });

  it('run-load-worker stops at once when the Lambda has less time left than the safety margin', async () => {
    s3.on(GetObjectCommand).resolves({ Body: bodyOf(new TextEncoder().encode('{"x":1}')) });
    s3.on(PutObjectCommand).resolves({});
    const { handler, RESULT_SAFETY_MARGIN_MS } = await import('../../lambdas/run-load-worker.js');

    const outcome = await handler(
      { plan, candidateId: 'c5', deployment: { endpointName: realtime.endpointName }, workerIndex: 0 },
      fakeContext(RESULT_SAFETY_MARGIN_MS - 1000),
    );

    expect(outcome.stoppedBecause).toBe('deadline');
  });

  it('aggregate-load-test merges the worker results and stores the candidate result', async () => {
    if (workerResult === undefined) throw new Error('run the worker test first');
    s3.on(GetObjectCommand, {
      Bucket: 'mso-artifacts',
      Key: `runs/${RUN_ID}/load-tests/c5/worker-0/segment-0.json`,
    }).resolves({
      Body: bodyOf(workerResult),
    });
    s3.on(PutObjectCommand).resolves({});
    const { handler } = await import('../../lambdas/aggregate-load-test.js');

    const outcome = await handler(
      { plan, candidateId: 'c5', workers: [worker], deployment: { createdEpochMs: 1_000 } },
      fakeContext(),
    );

    expect(outcome).toMatchObject({
      candidateId: 'c5',
      status: 'MEASURED',
      resultUri: `s3://mso-artifacts/runs/${RUN_ID}/load-tests/c5/result.json`,
      endpointCreatedEpochMs: 1_000,
    });
    expect(putInputs()[0]).toMatchObject({
      Key: `runs/${RUN_ID}/load-tests/c5/result.json`,
      ContentType: 'application/json',
    });
  });
});

describe('recommend entry', () => {
  it('writes report.json, report.md and report.html under the run prefix', async () => {
    // Arrange: a measured candidate whose result the aggregate step wrote.
    const result = {
      steps: [],
      sustainableTps: null,
      stoppedBecause: 'completed',
    };
    s3.on(GetObjectCommand).resolves({ Body: bodyOf(new TextEncoder().encode(JSON.stringify(result))) });
    s3.on(PutObjectCommand).resolves({});
    const outcomes: CandidateOutcome[] = [
      {
        candidateId: 'c5',
        status: 'MEASURED',
        resultUri: `s3://mso-artifacts/runs/${RUN_ID}/load-tests/c5/result.json`,
      },
      { candidateId: 'c5-neo', status: 'SKIPPED', skipReason: 'compilation for ml_c5 failed: test' },
      { candidateId: 'sls', status: 'FAILED', error: { Error: 'EndpointFailedError', Cause: 'test' } },
    ];
    const { handler } = await import('../../lambdas/recommend.js');

    // Act
    const summary = await handler({ plan, candidates: outcomes }, fakeContext());

    // Assert
    expect(summary.report).toEqual({
      json: `s3://mso-artifacts/runs/${RUN_ID}/report.json`,
      markdown: `s3://mso-artifacts/runs/${RUN_ID}/report.md`,
      html: `s3://mso-artifacts/runs/${RUN_ID}/report.html`,
    });
    expect(putInputs().map(({ Key, ContentType }) => ({ Key, ContentType }))).toEqual([
      { Key: `runs/${RUN_ID}/report.json`, ContentType: 'application/json' },
      { Key: `runs/${RUN_ID}/report.md`, ContentType: 'text/markdown' },
      { Key: `runs/${RUN_ID}/report.html`, ContentType: 'text/html' },
    ]);
    const report = JSON.parse(new TextDecoder().decode(putInputs()[0]?.Body as Uint8Array)) as {
      measuredLocally?: boolean;
    };
    expect(JSON.stringify(report)).not.toContain('"measuredLocally":true');
  });
});

describe('record-proof entry', () => {
  it('judges the proof’s worker results, reads InvocationsPerInstance of its variant and rewrites the report', async () => {
    // Arrange: the report "Recommend" wrote, and one worker's step of 40 answers in 5 ms over 1 s.
    const winner = plannedCandidate('c5', 'ml.c5.xlarge', 0.204);
    const report = reportFrom(
      [{ candidate: winner, steps: [{ load: 1, tps: 200, medianMs: 5, tailMs: 1 }] }],
      {
        plan: { sla: { p95LatencyMs: 100, maxErrorRate: 0.01, targetTps: 40 } },
        measuredLocally: false,
      },
    );
    const request = {
      targetTps: 40,
      instances: 2,
      candidate: proofCandidate(RUN_ID, winner, 2),
      loadPlan: proofLoadPlan({ ...plan.loadPlan, warmupSeconds: 0, stepDurationSeconds: 1 }, 40, 1),
    };
    const workerKey = `runs/${RUN_ID}/load-tests/c5-prove/worker-0/segment-0.json`;
    const histogram = createLatencyHistogram();
    for (let i = 0; i < 40; i++) recordLatencyUs(histogram, 5000);
    const start = Date.parse('2026-11-24T10:00:00Z');
    const worker: WorkerResult = {
      schemaVersion: 1,
      workerIndex: 0,
      workers: 1,
      model: 'open',
      startEpochMs: start,
      finishedEpochMs: start + 1000,
      steps: [
        {
          stepIndex: 0,
          load: 40,
          workerLoad: 40,
          windowStartEpochMs: start,
          windowMs: 1000,
          activeFromMs: 0,
          activeToMs: 1000,
          bucketMs: 1000,
          okPerBucket: [40],
          requests: 40,
          ok: 40,
          errors: { modelError: 0, throttled: 0, timeout: 0, clientError: 0 },
          errorSamples: [],
          late: 0,
          dropped: 0,
          histogram: encodeHistogram(histogram),
          maxLatencyUs: 5000,
        },
      ],
      stoppedBecause: 'completed',
      stopDetail: 'all steps ran',
    };
    const json = (value: unknown) => ({ Body: bodyOf(new TextEncoder().encode(JSON.stringify(value))) });
    s3.on(GetObjectCommand, { Key: `runs/${RUN_ID}/report.json` }).resolves(json(report));
    s3.on(GetObjectCommand, { Key: workerKey }).resolves(json(worker));
    s3.on(PutObjectCommand).resolves({});
    cloudwatch.on(GetMetricDataCommand).resolves({
      MetricDataResults: [{ Id: 'invocationsPerInstance_sum', Values: [20], StatusCode: 'Complete' }],
    });
    const { handler } = await import('../../lambdas/record-proof.js');
    const reportUri = (file: string) => `s3://mso-artifacts/runs/${RUN_ID}/${file}`;

    // Act
    const outcome = await handler(
      {
        plan: { runId: RUN_ID, artifactsBucket: 'mso-artifacts', sla: report.sla },
        summary: {
          report: {
            json: reportUri('report.json'),
            markdown: reportUri('report.md'),
            html: reportUri('report.html'),
          },
          proofRequest: request,
        },
        deployment: {
          endpointName: request.candidate.endpointName,
          variantName: 'AllTraffic',
          instanceCount: 2,
        },
        workers: [
          { workerIndex: 0, resultUri: `s3://mso-artifacts/${workerKey}`, stoppedBecause: 'completed' },
        ],
      },
      fakeContext(),
    );

    // Assert
    expect([outcome.status, outcome.instances]).toEqual(['held', 2]);
    const query = cloudwatch.commandCalls(GetMetricDataCommand)[0]?.args[0].input.MetricDataQueries?.[0];
    expect(query?.MetricStat?.Metric).toEqual({
      Namespace: 'AWS/SageMaker',
      MetricName: 'InvocationsPerInstance',
      Dimensions: [
        { Name: 'EndpointName', Value: request.candidate.endpointName },
        { Name: 'VariantName', Value: 'AllTraffic' },
      ],
    });
    expect(putInputs().map(({ Key }) => Key)).toEqual([
      `runs/${RUN_ID}/report.json`,
      `runs/${RUN_ID}/report.md`,
      `runs/${RUN_ID}/report.html`,
    ]);
    const written = JSON.parse(new TextDecoder().decode(putInputs()[0]?.Body as Uint8Array)) as Report;
    expect(written.serveTarget?.proof?.perInstance).toEqual([
      { instance: 'each instance of variant AllTraffic (average)', invocations: 20 },
    ]);
  });
});

describe('clean-up entries', () => {
  it('delete-candidate deletes the endpoint, its config and its model by name', async () => {
    sagemaker.on(DescribeEndpointCommand).resolves({ EndpointStatus: 'InService', EndpointConfigName: 'ec' });
    sagemaker.on(DescribeEndpointConfigCommand).resolves({ ProductionVariants: [] });
    sagemaker.on(DeleteEndpointCommand).resolves({});
    sagemaker.on(DeleteEndpointConfigCommand).resolves({});
    sagemaker.on(DeleteModelCommand).resolves({});
    const { handler } = await import('../../lambdas/delete-candidate.js');

    const deleted = await handler(
      { plan: { cleanupPolicy: 'delete-all' }, candidate: realtime },
      fakeContext(),
    );

    expect(deleted).toMatchObject({
      endpoints: [realtime.endpointName],
      endpointConfigs: [realtime.endpointConfigName],
      models: [realtime.modelName],
    });
    expect(sagemaker.commandCalls(DeleteEndpointCommand)[0]?.args[0].input).toEqual({
      EndpointName: realtime.endpointName,
    });
  });

  it('clean-up finds the run resources by name prefix and deletes them', async () => {
    const prefix = realtime.endpointName.slice(0, realtime.endpointName.indexOf('-ep-') + 1);
    sagemaker.on(ListEndpointsCommand).resolves({ Endpoints: [] });
    sagemaker.on(ListEndpointConfigsCommand).resolves({
      EndpointConfigs: [
        { EndpointConfigName: realtime.endpointConfigName, EndpointConfigArn: 'a', CreationTime: new Date() },
      ],
    });
    sagemaker
      .on(ListModelsCommand)
      .resolves({ Models: [{ ModelName: realtime.modelName, ModelArn: 'b', CreationTime: new Date() }] });
    sagemaker.on(ListCompilationJobsCommand).resolves({ CompilationJobSummaries: [] });
    sagemaker.on(ListOptimizationJobsCommand).resolves({ OptimizationJobSummaries: [] });
    sagemaker.on(DeleteEndpointConfigCommand).resolves({});
    sagemaker.on(DeleteModelCommand).resolves({});
    const { handler } = await import('../../lambdas/clean-up.js');

    const result = await handler(
      {
        plan: { runId: RUN_ID, artifactsBucket: 'b', runPrefixUri: `s3://b/runs/${RUN_ID}/`, candidates: [] },
      },
      fakeContext(),
    );

    expect(result).toMatchObject({
      endpointConfigs: [realtime.endpointConfigName],
      models: [realtime.modelName],
    });
    expect(sagemaker.commandCalls(ListModelsCommand)[0]?.args[0].input).toMatchObject({
      NameContains: prefix,
    });
  });
});
