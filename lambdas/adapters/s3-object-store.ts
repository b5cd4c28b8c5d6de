import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { ResourceNotFoundError } from '../../handlers/contracts/errors.js';
import { type ObjectLocation, parseObjectUri } from '../../handlers/contracts/object-uri.js';
import type { ObjectMetadata, ObjectStore } from '../../handlers/ports.js';
import { httpStatusOf } from './aws-errors.js';

/**
 * `ObjectStore` over S3. Objects are encrypted by the bucket's default encryption (the artifacts
 * bucket's KMS key, set by the stack), so no key is named here: a key in the request would have to
 * change with the bucket.
 */
export class S3ObjectStore implements ObjectStore {
  constructor(private readonly client: S3Client) {}

  async head(uri: string): Promise<ObjectMetadata | undefined> {
    const { bucket, key } = s3Location(uri);
    try {
      const response = await this.client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      return {
        sizeBytes: response.ContentLength ?? 0,
        ...(response.ETag === undefined ? {} : { etag: response.ETag }),
      };
    } catch (error) {
      // HeadObject has no body, so a missing object is only a 404 (`NotFound`), never `NoSuchKey`.
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  async getBytes(uri: string): Promise<Uint8Array> {
    const { bucket, key } = s3Location(uri);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      if (response.Body === undefined) {
        throw new ResourceNotFoundError(`S3 returned no body for ${uri}`, { uri });
      }
      return await response.Body.transformToByteArray();
    } catch (error) {
      if (!isMissingObject(error)) throw error;
      throw new ResourceNotFoundError(
        `No object at ${uri}: check the URI, or that the step that writes it has run`,
        { uri },
        { cause: error },
      );
    }
  }

  async putBytes(uri: string, body: Uint8Array, contentType?: string): Promise<void> {
    const { bucket, key } = s3Location(uri);
    await this.client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: body,
        ...(contentType === undefined ? {} : { ContentType: contentType }),
      }),
    );
  }
}

function s3Location(uri: string): ObjectLocation {
  const location = parseObjectUri(uri);
  if (location.scheme !== 's3') {
    throw new TypeError(
      `S3ObjectStore: got ${JSON.stringify(uri)}, expected an s3://bucket/key URI: file:// URIs work in ` +
        'local mode only, since a Lambda cannot read your disk. Upload the file to S3 and pass its s3:// URI.',
    );
  }
  return location;
}

function isMissingObject(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'NotFound' || error.name === 'NoSuchKey' || httpStatusOf(error) === 404;
}
