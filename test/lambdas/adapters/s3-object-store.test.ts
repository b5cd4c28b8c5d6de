import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { ResourceNotFoundError, TransientServiceError } from '../../../core/contracts/errors.js';
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

  it('fails with TransientServiceError when heading is throttled past the SDK retries', async () => {
    // Arrange
    s3.on(HeadObjectCommand).rejects(
      new S3ServiceException({
        name: 'SlowDown',
        message: 'Please reduce your request rate.',
        $fault: 'server',
        $metadata: { httpStatusCode: 503 },
      }),
    );

    // Act
    const head = store.head('s3://mso-artifacts/inputs/1.json');

    // Assert
    await expect(head).rejects.toBeInstanceOf(TransientServiceError);
    await expect(head).rejects.toThrow(
      "HeadObject s3://mso-artifacts/inputs/1.json failed after the SDK's own retries: SlowDown: Please reduce your request rate. The workflow retries the step with a longer backoff.",
    );
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

  it('reads the first bytes of an object with a ranged GetObject', async () => {
    // Arrange
    s3.on(GetObjectCommand).resolves({
      // One byte more than asked: what a store that ignores the range would send.
      Body: { transformToByteArray: () => Promise.resolve(new Uint8Array([0x1f, 0x8b, 0x08])) } as never,
    });

    // Act
    const bytes = await store.getFirstBytes('s3://user-models/resnet/model.tar.gz', 2);

    // Assert
    expect([...bytes]).toEqual([0x1f, 0x8b]);
    expect(s3.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: 'user-models',
      Key: 'resnet/model.tar.gz',
      Range: 'bytes=0-1',
    });
  });

  it('reads no first bytes of an empty object, which S3 answers with 416 InvalidRange', async () => {
    // Arrange
    s3.on(GetObjectCommand).rejects(
      new S3ServiceException({
        name: 'InvalidRange',
        message: 'The requested range is not satisfiable',
        $fault: 'client',
        $metadata: { httpStatusCode: 416 },
      }),
    );

    // Act
    const bytes = await store.getFirstBytes('s3://user-models/empty.tar.gz', 2);

    // Assert
    expect([...bytes]).toEqual([]);
  });

  it('fails when reading the first bytes of a missing object with ResourceNotFoundError', async () => {
    // Arrange
    s3.on(GetObjectCommand).rejects(
      new NoSuchKey({ message: 'The specified key does not exist.', $metadata: { httpStatusCode: 404 } }),
    );

    // Act
    const read = store.getFirstBytes('s3://user-models/missing.tar.gz', 2);

    // Assert
    await expect(read).rejects.toBeInstanceOf(ResourceNotFoundError);
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

  describe('listing', () => {
    function listInputs(): unknown[] {
      return s3.commandCalls(ListObjectsV2Command).map((call) => call.args[0].input);
    }

    it('lists the objects under a prefix as s3:// URIs, skipping folder markers', async () => {
      // Arrange
      s3.on(ListObjectsV2Command).resolves({
        Contents: [
          { Key: 'inputs/' },
          { Key: 'inputs/0001.json' },
          { Key: 'inputs/nested/' },
          { Key: 'inputs/nested/0002.json' },
        ],
        IsTruncated: false,
      });

      // Act
      const listing = await store.list('s3://mso-async-input/inputs/', 10);

      // Assert
      expect(listing).toEqual({
        uris: ['s3://mso-async-input/inputs/0001.json', 's3://mso-async-input/inputs/nested/0002.json'],
        truncated: false,
      });
      expect(listInputs()).toEqual([{ Bucket: 'mso-async-input', Prefix: 'inputs/', MaxKeys: 11 }]);
    });

    it('follows the continuation token to the next page, asking only for the keys still wanted', async () => {
      // Arrange
      s3.on(ListObjectsV2Command, { ContinuationToken: undefined }).resolves({
        Contents: [{ Key: 'inputs/a.json' }, { Key: 'inputs/b.json' }],
        IsTruncated: true,
        NextContinuationToken: 'page-2',
      });
      s3.on(ListObjectsV2Command, { ContinuationToken: 'page-2' }).resolves({
        Contents: [{ Key: 'inputs/c.json' }],
        IsTruncated: false,
      });

      // Act
      const listing = await store.list('s3://mso-async-input/inputs/', 5);

      // Assert
      expect(listing).toEqual({
        uris: [
          's3://mso-async-input/inputs/a.json',
          's3://mso-async-input/inputs/b.json',
          's3://mso-async-input/inputs/c.json',
        ],
        truncated: false,
      });
      expect(listInputs()).toEqual([
        { Bucket: 'mso-async-input', Prefix: 'inputs/', MaxKeys: 6 },
        { Bucket: 'mso-async-input', Prefix: 'inputs/', MaxKeys: 4, ContinuationToken: 'page-2' },
      ]);
    });

    it('asks for at most 1,000 keys per page, the ListObjectsV2 maximum', async () => {
      s3.on(ListObjectsV2Command).resolves({ Contents: [], IsTruncated: false });

      await store.list('s3://mso-async-input/inputs/', 5000);

      expect(listInputs()).toEqual([{ Bucket: 'mso-async-input', Prefix: 'inputs/', MaxKeys: 1000 }]);
    });

    it('stops at the limit and says the listing is truncated when another object follows', async () => {
      s3.on(ListObjectsV2Command).resolves({
        Contents: [{ Key: 'inputs/a.json' }, { Key: 'inputs/b.json' }, { Key: 'inputs/c.json' }],
        IsTruncated: true,
        NextContinuationToken: 'page-2',
      });

      const listing = await store.list('s3://mso-async-input/inputs/', 2);

      expect(listing).toEqual({
        uris: ['s3://mso-async-input/inputs/a.json', 's3://mso-async-input/inputs/b.json'],
        truncated: true,
      });
      expect(listInputs()).toHaveLength(1);
    });

    it('is not truncated when only folder markers follow the limit', async () => {
      // Arrange: the first page fills the limit, the next holds a folder marker only.
      s3.on(ListObjectsV2Command, { ContinuationToken: undefined }).resolves({
        Contents: [{ Key: 'inputs/a.json' }],
        IsTruncated: true,
        NextContinuationToken: 'page-2',
      });
      s3.on(ListObjectsV2Command, { ContinuationToken: 'page-2' }).resolves({
        Contents: [{ Key: 'inputs/empty/' }],
        IsTruncated: false,
      });

      // Act
      const listing = await store.list('s3://mso-async-input/inputs/', 1);

      // Assert
      expect(listing).toEqual({ uris: ['s3://mso-async-input/inputs/a.json'], truncated: false });
      expect(listInputs()[1]).toEqual({
        Bucket: 'mso-async-input',
        Prefix: 'inputs/',
        MaxKeys: 1,
        ContinuationToken: 'page-2',
      });
    });

    it('lists a whole bucket from its root URI', async () => {
      s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'x.json' }], IsTruncated: false });

      await expect(store.list('s3://mso-async-input/', 10)).resolves.toEqual({
        uris: ['s3://mso-async-input/x.json'],
        truncated: false,
      });
      expect(listInputs()).toEqual([{ Bucket: 'mso-async-input', Prefix: '', MaxKeys: 11 }]);
    });

    it('fails when the prefix does not end with "/", before calling S3', async () => {
      await expect(store.list('s3://mso-async-input/inputs', 10)).rejects.toThrow(/ending with "\/"/);
      expect(s3.calls()).toHaveLength(0);
    });

    it('fails when the limit is not a whole number of at least 1', async () => {
      await expect(store.list('s3://mso-async-input/inputs/', 0)).rejects.toThrow(
        /got the limit 0, expected a whole number of objects, at least 1/,
      );
    });

    it('fails when S3 keeps throttling, with TransientServiceError', async () => {
      s3.on(ListObjectsV2Command).rejects(
        new S3ServiceException({
          name: 'SlowDown',
          message: 'Please reduce your request rate.',
          $fault: 'server',
          $metadata: { httpStatusCode: 503 },
        }),
      );

      await expect(store.list('s3://mso-async-input/inputs/', 10)).rejects.toBeInstanceOf(
        TransientServiceError,
      );
    });

    it('fails when the bucket refuses the listing, keeping the SDK error', async () => {
      const denied = new S3ServiceException({
        name: 'AccessDenied',
        message: 'Access Denied',
        $fault: 'client',
        $metadata: { httpStatusCode: 403 },
      });
      s3.on(ListObjectsV2Command).rejects(denied);

      await expect(store.list('s3://other-account/inputs/', 10)).rejects.toBe(denied);
    });
  });
});
