import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import {
  ResourceNotFoundError,
  TransientServiceError,
  type ObjectLocation,
  parseObjectUri,
} from '../../core/contracts/index.js';
import type { ObjectListing, ObjectMetadata, ObjectStore } from '../../core/ports/index.js';
import { errorMessage, errorName, httpStatusOf, isTransient } from './aws-errors.js';

/** ListObjectsV2 returns at most 1,000 keys per request (S3 API reference, `MaxKeys`). */
export const LIST_PAGE_MAX_KEYS = 1000;

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
      // Validation heads every input: a throttled head is retried by the step, not read as a bad input.
      if (isTransient(error)) throw transientError('HeadObject', uri, error);
      throw error;
    }
  }

  getBytes(uri: string): Promise<Uint8Array> {
    return this.get(uri);
  }

  /**
   * A ranged GetObject (`Range: bytes=0-<count - 1>`, S3 API reference, GetObject `Range`). S3
   * answers a range that starts past the end, i.e. any range of an empty object, with 416
   * `InvalidRange`: that object's first bytes are none.
   */
  async getFirstBytes(uri: string, count: number): Promise<Uint8Array> {
    if (!Number.isInteger(count) || count < 1) {
      throw new TypeError(`S3ObjectStore.getFirstBytes ${uri}: got ${count} bytes, expected at least 1`);
    }
    try {
      // A store that ignores the range still answers with the object's beginning.
      return (await this.get(uri, `bytes=0-${count - 1}`)).slice(0, count);
    } catch (error) {
      if (errorName(error) === 'InvalidRange' || httpStatusOf(error) === 416) return new Uint8Array();
      if (isTransient(error)) throw transientError('GetObject', uri, error);
      throw error;
    }
  }

  private async get(uri: string, range?: string): Promise<Uint8Array> {
    const { bucket, key } = s3Location(uri);
    try {
      const response = await this.client.send(
        new GetObjectCommand({ Bucket: bucket, Key: key, ...(range === undefined ? {} : { Range: range }) }),
      );
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

  /**
   * ListObjectsV2, page after page (ContinuationToken), asking each page for no more keys than are
   * still wanted plus one: that one more key is how a listing that stops at `limit` knows whether
   * it is `truncated`. Keys ending with `/` are the zero-byte "folder" markers the S3 console
   * creates, not objects. General purpose buckets list keys in UTF-8 binary order (S3 API
   * reference, ListObjectsV2), which is the order kept here.
   */
  async list(prefixUri: string, limit: number): Promise<ObjectListing> {
    const { bucket, prefix } = s3Prefix(prefixUri);
    if (!Number.isInteger(limit) || limit < 1) {
      throw new TypeError(
        `S3ObjectStore.list ${prefixUri}: got the limit ${limit}, expected a whole number of objects, at least 1`,
      );
    }
    const uris: string[] = [];
    let continuationToken: string | undefined;
    for (;;) {
      const page = await this.listPage(prefixUri, {
        bucket,
        prefix,
        maxKeys: Math.min(LIST_PAGE_MAX_KEYS, limit - uris.length + 1),
        continuationToken,
      });
      for (const object of page.Contents ?? []) {
        const key = object.Key;
        if (key === undefined || key.endsWith('/')) continue;
        if (uris.length === limit) return { uris, truncated: true };
        uris.push(`s3://${bucket}/${key}`);
      }
      continuationToken = page.IsTruncated === true ? page.NextContinuationToken : undefined;
      if (continuationToken === undefined || continuationToken === '') return { uris, truncated: false };
    }
  }

  private async listPage(
    prefixUri: string,
    page: {
      readonly bucket: string;
      readonly prefix: string;
      readonly maxKeys: number;
      readonly continuationToken: string | undefined;
    },
  ): Promise<ListObjectsV2CommandOutput> {
    try {
      return await this.client.send(
        new ListObjectsV2Command({
          Bucket: page.bucket,
          Prefix: page.prefix,
          MaxKeys: page.maxKeys,
          ...(page.continuationToken === undefined ? {} : { ContinuationToken: page.continuationToken }),
        }),
      );
    } catch (error) {
      if (!isTransient(error)) throw error;
      throw new TransientServiceError(
        `ListObjectsV2 under ${prefixUri} failed after the SDK's own retries: ${errorName(error) ?? 'Error'}: ` +
          `${errorMessage(error)}. The workflow retries the step with a longer backoff.`,
        { operation: 'ListObjectsV2', prefixUri, errorName: errorName(error) },
        { cause: error },
      );
    }
  }
}

function transientError(operation: string, uri: string, error: unknown): TransientServiceError {
  return new TransientServiceError(
    `${operation} ${uri} failed after the SDK's own retries: ${errorName(error) ?? 'Error'}: ` +
      `${errorMessage(error).replace(/\.$/, '')}. The workflow retries the step with a longer backoff.`,
    { operation, uri, errorName: errorName(error) },
    { cause: error },
  );
}

/** `s3://bucket/prefix/` split; the bucket root `s3://bucket/` lists the whole bucket. */
function s3Prefix(prefixUri: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)\/(.*)$/.exec(prefixUri);
  const bucket = match?.[1];
  const prefix = match?.[2];
  if (bucket === undefined || prefix === undefined || (prefix !== '' && !prefix.endsWith('/'))) {
    throw new TypeError(
      `S3ObjectStore.list: got ${JSON.stringify(prefixUri)}, expected an s3://bucket/prefix/ URI ending with "/" ` +
        '(a prefix without it also matches its siblings, e.g. inputs matches inputs-old/); file:// URIs work ' +
        'in local mode only',
    );
  }
  return { bucket, prefix };
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
