import type { ObjectListing, ObjectMetadata, ObjectStore } from '../../core/ports/index.js';

/** An in-memory ObjectStore for unit tests: records what was written. */
export class MemoryObjectStore implements ObjectStore {
  readonly objects = new Map<string, { body: Uint8Array; contentType?: string }>();

  seed(uri: string, body: string | Uint8Array): this {
    this.objects.set(uri, { body: typeof body === 'string' ? new TextEncoder().encode(body) : body });
    return this;
  }

  head(uri: string): Promise<ObjectMetadata | undefined> {
    const object = this.objects.get(uri);
    return Promise.resolve(object === undefined ? undefined : { sizeBytes: object.body.byteLength });
  }

  getBytes(uri: string): Promise<Uint8Array> {
    const object = this.objects.get(uri);
    if (object === undefined) return Promise.reject(new Error(`No object at ${uri}`));
    return Promise.resolve(object.body);
  }

  getFirstBytes(uri: string, count: number): Promise<Uint8Array> {
    return this.getBytes(uri).then((body) => body.slice(0, count));
  }

  putBytes(uri: string, body: Uint8Array, contentType?: string): Promise<void> {
    this.objects.set(uri, { body, ...(contentType === undefined ? {} : { contentType }) });
    return Promise.resolve();
  }

  /** Like S3ObjectStore.list: key order, folder markers (`…/`) skipped, `truncated` past `limit`. */
  list(prefixUri: string, limit: number): Promise<ObjectListing> {
    if (!prefixUri.endsWith('/')) {
      return Promise.reject(
        new TypeError(`MemoryObjectStore.list: got ${prefixUri}, expected a prefix ending with "/"`),
      );
    }
    if (!Number.isInteger(limit) || limit < 1) {
      return Promise.reject(
        new TypeError(`MemoryObjectStore.list: got the limit ${limit}, expected at least 1`),
      );
    }
    const matching = [...this.objects.keys()]
      .filter((uri) => uri.startsWith(prefixUri) && !uri.endsWith('/'))
      .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    return Promise.resolve({ uris: matching.slice(0, limit), truncated: matching.length > limit });
  }
}

export const silentLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
