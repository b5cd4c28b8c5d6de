import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseObjectUri } from '../../core/contracts/index.js';
import type { ObjectListing, ObjectMetadata, ObjectStore } from '../../core/ports/index.js';

export interface FileObjectStoreOptions {
  /** Where buckets live: `s3://bucket/key` is stored at `<rootDir>/<bucket>/<key>`. */
  readonly rootDir: string;
  /**
   * S3 prefixes stored in another folder instead, e.g. `{ 's3://local-artifacts/runs/': 'runs' }`
   * puts `s3://local-artifacts/runs/r1/report.json` at `runs/r1/report.json`. The longest matching
   * prefix wins.
   */
  readonly mounts?: Readonly<Record<string, string>>;
}

/**
 * The local stand-in for the artifacts bucket: S3 objects are files with the bucket's key layout,
 * so a run's artifacts can be browsed with `ls`. `file:///abs/path` URIs name the user's own files:
 * readable, never written. Writes go to a temporary file that is renamed into place, so a reader
 * never sees half an object (S3 has the same all-or-nothing PUT).
 */
export class FileObjectStore implements ObjectStore {
  private readonly rootDir: string;
  private readonly mounts: readonly (readonly [prefix: string, dir: string])[];

  constructor(options: FileObjectStoreOptions) {
    this.rootDir = resolve(options.rootDir);
    this.mounts = Object.entries(options.mounts ?? {})
      .map(([prefix, dir]) => [prefix, resolve(dir)] as const)
      .sort(([a], [b]) => b.length - a.length);
  }

  /** The file that holds the object at `uri`. */
  pathOf(uri: string): string {
    const location = parseObjectUri(uri);
    if (location.scheme === 'file') return location.key;
    const mount = this.mounts.find(([prefix]) => uri.startsWith(prefix));
    const [base, key] =
      mount === undefined
        ? [this.rootDir, `${location.bucket}/${location.key}`]
        : [mount[1], uri.slice(mount[0].length)];
    const path = resolve(base, key);
    const inside = relative(base, path);
    if (inside === '' || inside.startsWith(`..${sep}`) || inside === '..' || isAbsolute(inside)) {
      throw new RangeError(
        `Object URI ${uri}: got a key that leaves the store folder ${base}, expected a key without ".." segments`,
      );
    }
    return path;
  }

  async head(uri: string): Promise<ObjectMetadata | undefined> {
    try {
      const info = await stat(this.pathOf(uri));
      return info.isFile()
        ? { sizeBytes: info.size, etag: `${info.size}-${Math.trunc(info.mtimeMs)}` }
        : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async getBytes(uri: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(this.pathOf(uri)));
    } catch (error) {
      if (isNotFound(error)) {
        throw new Error(`No object at ${uri} (looked for the file ${this.pathOf(uri)})`, { cause: error });
      }
      throw error;
    }
  }

  /** Reads only the first `count` bytes of the file, as S3's ranged GetObject does. */
  async getFirstBytes(uri: string, count: number): Promise<Uint8Array> {
    if (!Number.isInteger(count) || count < 1) {
      throw new RangeError(`getFirstBytes ${uri}: got ${count} bytes, expected at least 1`);
    }
    let file;
    try {
      file = await open(this.pathOf(uri), 'r');
    } catch (error) {
      if (isNotFound(error)) {
        throw new Error(`No object at ${uri} (looked for the file ${this.pathOf(uri)})`, { cause: error });
      }
      throw error;
    }
    try {
      const buffer = new Uint8Array(count);
      const { bytesRead } = await file.read(buffer, 0, count, 0);
      return buffer.slice(0, bytesRead);
    } finally {
      await file.close();
    }
  }

  async putBytes(uri: string, body: Uint8Array): Promise<void> {
    if (parseObjectUri(uri).scheme === 'file') {
      throw new Error(
        `Refusing to write ${uri}: file:// URIs name your own files, which local mode only reads; expected an s3:// URI`,
      );
    }
    const path = this.pathOf(uri);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.partial-${randomUUID()}`;
    try {
      await writeFile(partial, body);
      await rename(partial, path);
    } finally {
      await rm(partial, { force: true });
    }
  }

  /**
   * The objects whose URI starts with `prefixUri`, in key order (as S3 ListObjectsV2 returns them),
   * at most `limit`. Folders are not objects; half-written files (`.partial-…`) are not listed;
   * objects of a mounted prefix are listed under their `s3://` URI, as S3 would.
   */
  async list(prefixUri: string, limit: number): Promise<ObjectListing> {
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`list ${prefixUri}: limit got ${limit}, expected an integer of at least 1`);
    }
    if (!/^(s3:\/\/[^/]+\/|file:\/\/\/)/.test(prefixUri)) {
      throw new TypeError(
        `list: got the prefix ${JSON.stringify(prefixUri)}, expected s3://bucket/ or file:/// followed by an optional key prefix`,
      );
    }
    // The folder of the prefix's last complete segment; the rest of the prefix filters names.
    const folderUri = prefixUri.slice(0, prefixUri.lastIndexOf('/') + 1);
    const roots: [uriPrefix: string, dir: string][] = [[folderUri, this.folderOf(folderUri)]];
    for (const [mountPrefix, dir] of this.mounts) {
      // A mount below the listed folder holds objects of the listing too (S3 has no mounts).
      if (mountPrefix.startsWith(folderUri) && mountPrefix !== folderUri) roots.push([mountPrefix, dir]);
    }
    const uris: string[] = [];
    for (const [uriPrefix, dir] of roots) {
      for (const path of await filesUnder(dir)) {
        const uri = uriPrefix + relative(dir, path).split(sep).join('/');
        // Listed once, under the root that `pathOf` maps it to (a mount shadows the plain folder).
        if (uri.startsWith(prefixUri) && this.pathOf(uri) === path) uris.push(uri);
      }
    }
    // UTF-16 order, which is S3's UTF-8 byte order for every key without characters above U+FFFF.
    uris.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return { uris: uris.slice(0, limit), truncated: uris.length > limit };
  }

  /** The folder that holds the objects under a prefix URI ending with `/`. */
  private folderOf(folderUri: string): string {
    // `pathOf` maps objects, not prefixes: map a name inside the folder and take its folder.
    return dirname(this.pathOf(`${folderUri}_`));
  }
}

/** Every file below `dir` (recursively), skipping half-written ones; none when it does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path)));
    else if (entry.isFile() && !PARTIAL_FILE.test(entry.name)) files.push(path);
  }
  return files;
}

/** The temporary name `putBytes` writes to before renaming (`<name>.partial-<uuid>`). */
const PARTIAL_FILE = /\.partial-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isNotFound(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error.code === 'ENOENT' || error.code === 'ENOTDIR')
  );
}
