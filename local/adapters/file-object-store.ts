import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { parseObjectUri } from '../../handlers/contracts/object-uri.js';
import type { ObjectMetadata, ObjectStore } from '../../handlers/ports.js';

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
}

function isNotFound(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    (error.code === 'ENOENT' || error.code === 'ENOTDIR')
  );
}
