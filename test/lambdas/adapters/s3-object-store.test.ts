import {
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { ResourceNotFoundError } from '../../../handlers/contracts/errors.js';
import { S3ObjectStore } from '../../../lambdas/adapters/s3-object-store.js';

const s3 = mockClient(S3Client);
const store = new S3ObjectStore(new S3Client({ region: 'us-east-1' }));

/** The part of the SDK's streaming body the store uses. */
function bodyOf(text: string): any {
  return { transformToByteArray: () => Promise.resolve(new TextEncoder().encode(text)) };
}

describe('S3ObjectStore', () => {
  beforeEach(() => {
    s3.reset();
  });

  it('heads an object by bucket and key, returning its size and ETag', async () => {
    // Arrange
    s3.on(HeadObjectCommand).resolves({ ContentLength: 1234, ETag: '"abc"' });

    // Act
    const metadata = await store.head('s3://user-models/resnet/model.pt');

    // Assert
    expect(metadata).toEqual({ sizeBytes: 1234, etag: '"abc"' });
    expect(s3.commandCalls(HeadObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'user-models',
      Key: 'resnet/model.pt',
    });
  });

  it('returns undefined when heading a missing object (NotFound)', async () => {
    s3.on(HeadObjectCommand).rejects(
      new NotFound({ message: 'Not Found', $metadata: { httpStatusCode: 404 } }),
    );

    await expect(store.head('s3://user-models/missing.pt')).resolves.toBeUndefined();
  });

  it('fails when heading is refused, keeping the SDK error and its name', async () => {
    const denied = new S3ServiceException({
      name: 'AccessDenied',
      message: 'Access Denied',
      $fault: 'client',
      $metadata: { httpStatusCode: 403 },
    });
    s3.on(HeadObjectCommand).rejects(denied);

    await expect(store.head('s3://other-account/model.pt')).rejects.toBe(denied);
  });

  it('reads an object as bytes', async () => {
    s3.on(GetObjectCommand, { Bucket: 'mso-artifacts', Key: 'runs/r1/payload.json' }).resolves({
      Body: bodyOf('{"x":1}'),
    });

    const bytes = await store.getBytes('s3://mso-artifacts/runs/r1/payload.json');

    expect(new TextDecoder().decode(bytes)).toBe('{"x":1}');
  });

  it('fails when reading a missing object with ResourceNotFoundError naming the URI', async () => {
    s3.on(GetObjectCommand).rejects(
      new NoSuchKey({ message: 'The specified key does not exist.', $metadata: {} }),
    );

    const error = await store.getBytes('s3://mso-artifacts/runs/r1/nothing.json').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ResourceNotFoundError);
    expect((error as Error).name).toBe('ResourceNotFoundError');
    expect((error as Error).message).toContain('s3://mso-artifacts/runs/r1/nothing.json');
  });

  it('writes bytes with their content type and no explicit encryption key (the bucket default applies)', async () => {
    s3.on(PutObjectCommand).resolves({});
    const body = new TextEncoder().encode('{"ok":true}');

    await store.putBytes('s3://mso-artifacts/runs/r1/report.json', body, 'application/json');

    expect(s3.commandCalls(PutObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'mso-artifacts',
      Key: 'runs/r1/report.json',
      Body: body,
      ContentType: 'application/json',
    });
  });

  it('fails when given a file:// URI, saying it works in local mode only', async () => {
    await expect(store.head('file:///tmp/model.onnx')).rejects.toThrow(
      /file:\/\/ URIs work in local mode only/,
    );
    expect(s3.calls()).toHaveLength(0);
  });
});
