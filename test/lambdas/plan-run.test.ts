import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type * as PlanRunEntry from '../../lambdas/plan-run.js';
import { validateAndPlan } from '../../handlers/validate-and-plan.js';
import { MemoryObjectStore, silentLogger } from '../support/memory-object-store.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

/**
 * The plan-run entry end to end: middy and Powertools, the real S3 and Service Quotas adapters
 * and "Validate and plan" itself, only the SDK clients mocked, the event as API Gateway's Lambda
 * proxy integration sends it. The mocks record every call: a plan reads, and writes nothing.
 */

setStepEnvironment();

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
let entry: typeof PlanRunEntry;

beforeAll(async () => {
  entry = await import('../../lambdas/plan-run.js');
});

beforeEach(() => {
  s3.reset();
  sagemaker.reset();
  serviceQuotas.reset();
  s3.on(HeadObjectCommand).resolves({ ContentLength: 7 });
  serviceQuotas
    .on(ListServiceQuotasCommand)
    .resolves({ Quotas: [{ QuotaName: 'ml.c5.xlarge for endpoint usage', Value: 4 }] });
});

/** Each call a mock recorded, as its command's name and input. */
function callsOf(mock: {
  calls(): readonly { args: readonly [{ constructor: { name: string }; input: unknown }] }[];
}) {
  return mock.calls().map((call) => [call.args[0].constructor.name, call.args[0].input]);
}

function planEvent(body: unknown) {
  return {
    resource: '/runs/plan',
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
        artifactsBucket: 'mso-artifacts',
        allowFileUris: false,
        servingRegion: 'us-east-1',
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
    expect({ s3: callsOf(s3), sagemaker: callsOf(sagemaker), serviceQuotas: callsOf(serviceQuotas) }).toEqual(
      {
        s3: [
          ['HeadObjectCommand', { Bucket: 'user-models', Key: 'cnn/model.onnx' }],
          ['HeadObjectCommand', { Bucket: 'user-models', Key: 'cnn/payload.json' }],
        ],
        sagemaker: [],
        serviceQuotas: [['ListServiceQuotasCommand', { ServiceCode: 'sagemaker', MaxResults: 100 }]],
      },
    );
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
});
