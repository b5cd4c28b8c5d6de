import { parseObjectUri } from '../../core/contracts/index.js';
import type { ObjectListing, ObjectMetadata } from '../../core/ports/index.js';
import { FileObjectStore } from './file-object-store.js';

/**
 * The local buckets as `--plan` sees them: reads see the files, and what was written here; writes
 * stay in memory. So planning a run creates no file: the example objects an input names are
 * written here for the planner to read, then forgotten with the store.
 */
export class OverlayObjectStore extends FileObjectStore {
  private readonly written = new Map<string, Uint8Array>();

  /** What was written, in memory only, in the order written. */
  writtenUris(): readonly string[] {
    return [...this.written.keys()];
  }

  override head(uri: string): Promise<ObjectMetadata | undefined> {
    const body = this.written.get(uri);
    return body === undefined ? super.head(uri) : Promise.resolve({ sizeBytes: body.byteLength });
  }

  override getBytes(uri: string): Promise<Uint8Array> {
    const body = this.written.get(uri);
    return body === undefined ? super.getBytes(uri) : Promise.resolve(body.slice());
  }

  override getFirstBytes(uri: string, count: number): Promise<Uint8Array> {
    const body = this.written.get(uri);
    return body === undefined || !Number.isInteger(count) || count < 1
      ? super.getFirstBytes(uri, count)
      : Promise.resolve(body.slice(0, count));
  }

  override putBytes(uri: string, body: Uint8Array): Promise<void> {
    if (parseObjectUri(uri).scheme === 'file') return super.putBytes(uri, body);
    // Where the file would go, so a key the files would refuse (`..`) is refused here too.
    this.pathOf(uri);
    this.written.set(uri, body.slice());
    return Promise.resolve();
  }

  /** The files' listing and the objects written here, merged in key order. */
  override async list(prefixUri: string, limit: number): Promise<ObjectListing> {
    const written = [...this.written.keys()].filter((uri) => uri.startsWith(prefixUri));
    // Enough files that the first `limit` of the union are among them and the written ones.
    const files = await super.list(prefixUri, limit + written.length);
    const uris = [...new Set([...files.uris, ...written])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { uris: uris.slice(0, limit), truncated: files.truncated || uris.length > limit };
  }
}
