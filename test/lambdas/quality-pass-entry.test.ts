import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type { RecordAnswersEvent } from '../../core/contracts/optimization-state.js';
import type { PlannedQuality } from '../../core/contracts/quality.js';
import { fakeContext, setStepEnvironment } from './support/fake-context.js';

setStepEnvironment();

const s3 = mockClient(S3Client);
const runtime = mockClient(SageMakerRuntimeClient);

const RUN_ID = 'quality-entry';
const ENDPOINT = `mso-${RUN_ID}-ep-c5-neo`;
const PAYLOAD = new TextEncoder().encode('{"input":[[0.5,0.25]]}');

const QUALITY: PlannedQuality = {
  referenceCandidateId: 'c5',
  rule: { kind: 'tensor', maxAbsoluteDifference: 0.05, maxRelativeDifference: 0.01 },
  allowUnknown: false,
  worstExamples: 5,
};

/** "Record candidate answers" for a compiled candidate, as the workflow builds it. */
function recordEvent(): RecordAnswersEvent {
  return {
    action: 'record',
    plan: {
      runId: RUN_ID,
      artifactsBucket: 'mso-artifacts',
      payloads: [
        {
          uri: 's3://user-models/cnn/payload.json',
          contentType: 'application/json',
          weight: 1,
          sizeBytes: 22,
        },
      ],
      quality: QUALITY,
      // The entry reads only the per-request timeout of the load plan.
      loadPlan: { requestTimeoutMs: 5_000 } as RecordAnswersEvent['plan']['loadPlan'],
    },
    candidateId: 'c5-neo',
    deployment: { endpointName: ENDPOINT },
  };
}

/** The part of the SDK's streaming body the store uses. */
function bodyOf(bytes: Uint8Array): never {
  return { transformToByteArray: () => Promise.resolve(bytes) } as never;
}

beforeEach(() => {
  s3.reset();
  runtime.reset();
});

describe('quality-pass entry', () => {
  it('asks the candidate’s endpoint each payload once with InvokeEndpoint and stores its answers under the run', async () => {
    // Prepare
    s3.on(GetObjectCommand, { Bucket: 'user-models', Key: 'cnn/payload.json' }).resolves({
      Body: bodyOf(PAYLOAD),
    });
    s3.on(PutObjectCommand).resolves({});
    runtime.on(InvokeEndpointCommand).resolves({
      Body: new TextEncoder().encode('[[0.1, 0.9]]') as never,
      ContentType: 'application/json',
    });
    const { handler } = await import('../../lambdas/quality-pass.js');

    // Act
    const pointer = await handler(recordEvent(), fakeContext(120_000));

    // Assert
    const invoked = runtime.commandCalls(InvokeEndpointCommand).map((call) => call.args[0].input);
    const stored = s3.commandCalls(PutObjectCommand).map((call) => call.args[0].input);
    expect({
      invoked: invoked.map(({ EndpointName, ContentType, Body }) => ({
        EndpointName,
        ContentType,
        Body: new TextDecoder().decode(Body as Uint8Array),
      })),
      stored: stored.map(({ Bucket, Key, ContentType }) => ({ Bucket, Key, ContentType })),
      answers: JSON.parse(
        stored[0]?.Body === undefined ? '{}' : new TextDecoder().decode(stored[0].Body as Uint8Array),
      ),
      pointer,
    }).toEqual({
      invoked: [{ EndpointName: ENDPOINT, ContentType: 'application/json', Body: '{"input":[[0.5,0.25]]}' }],
      stored: [
        {
          Bucket: 'mso-artifacts',
          Key: `runs/${RUN_ID}/quality/c5-neo/answers.json`,
          ContentType: 'application/json',
        },
      ],
      answers: {
        candidateId: 'c5-neo',
        endpointName: ENDPOINT,
        inputs: [{ inputId: 'payload-1', answers: [{ shape: [1, 2], values: [0.1, 0.9] }] }],
      },
      pointer: {
        answersUri: `s3://mso-artifacts/runs/${RUN_ID}/quality/c5-neo/answers.json`,
        inputs: 1,
        unanswered: 0,
      },
    });
  });
});
