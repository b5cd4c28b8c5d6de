import { NoSuchKey, NotFound, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { type AwsRecorder, installFake, serviceError } from './recorder.js';

/**
 * S3 as the object store adapter meets it: PutObject, GetObject (a missing key is `NoSuchKey`),
 * HeadObject (a missing key is a bare 404 `NotFound`: no body), ListObjectsV2 in UTF-8 order with
 * `MaxKeys` and continuation tokens (S3 API reference).
 */
export class FakeS3Service {
  readonly objects = new Map<string, { body: Uint8Array; contentType?: string }>();

  install(client: S3Client, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'S3Client',
      recorder,
      validationError: (message) => serviceError(S3ServiceException, 'InvalidArgument', message),
      handle: (command, input) => this.handle(command, input),
    });
  }

  seed(uri: string, body: string | Uint8Array): this {
    this.objects.set(uri, { body: typeof body === 'string' ? new TextEncoder().encode(body) : body });
    return this;
  }

  text(uri: string): string | undefined {
    const object = this.objects.get(uri);
    return object === undefined ? undefined : new TextDecoder().decode(object.body);
  }

  handle(command: string, input: Record<string, unknown>): unknown {
    const uri = `s3://${String(input.Bucket)}/${String(input.Key)}`;
    switch (command) {
      case 'PutObjectCommand': {
        const body = input.Body;
        const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : (body as Uint8Array);
        this.objects.set(uri, {
          body: bytes,
          ...(typeof input.ContentType === 'string' ? { contentType: input.ContentType } : {}),
        });
        return { ETag: `"${bytes.byteLength}"` };
      }
      case 'GetObjectCommand': {
        const object = this.objects.get(uri);
        if (object === undefined) {
          throw new NoSuchKey({
            message: 'The specified key does not exist.',
            $metadata: { httpStatusCode: 404 },
          });
        }
        return {
          ContentLength: object.body.byteLength,
          Body: {
            transformToByteArray: () => Promise.resolve(object.body),
            transformToString: () => Promise.resolve(new TextDecoder().decode(object.body)),
          },
        };
      }
      case 'HeadObjectCommand': {
        const object = this.objects.get(uri);
        if (object === undefined)
          throw new NotFound({ message: 'NotFound', $metadata: { httpStatusCode: 404 } });
        return { ContentLength: object.body.byteLength, ETag: `"${object.body.byteLength}"` };
      }
      case 'ListObjectsV2Command': {
        const prefix = `s3://${String(input.Bucket)}/${typeof input.Prefix === 'string' ? input.Prefix : ''}`;
        const keys = [...this.objects.keys()].filter((key) => key.startsWith(prefix)).sort();
        const start = typeof input.ContinuationToken === 'string' ? Number(input.ContinuationToken) : 0;
        const size = typeof input.MaxKeys === 'number' ? input.MaxKeys : 1000;
        const page = keys.slice(start, start + size);
        const truncated = start + size < keys.length;
        const bucketRoot = `s3://${String(input.Bucket)}/`;
        return {
          Contents: page.map((key) => ({ Key: key.slice(bucketRoot.length) })),
          IsTruncated: truncated,
          KeyCount: page.length,
          ...(truncated ? { NextContinuationToken: String(start + size) } : {}),
        };
      }
      default:
        throw new Error(`FakeS3Service: ${command} is not faked; add it to the fake`);
    }
  }
}
