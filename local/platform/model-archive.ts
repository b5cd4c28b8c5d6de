import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ObjectStore } from '../../core/ports/index.js';
import { extract as extractTar } from 'tar';
import { findModelFile } from '../model-server/index.js';

/** gzip's magic number: a model.tar.gz starts with it. */
const GZIP_MAGIC = [0x1f, 0x8b] as const;

/**
 * Extracts a `model.tar.gz` into `directory` (created, emptied first) as SageMaker extracts it into
 * `/opt/ml/model`, and returns the ONNX model file found there. `tar` refuses absolute paths and
 * `..` entries, so an archive cannot write outside the folder.
 */
export async function extractModelArchive(
  archive: Uint8Array,
  directory: string,
  source: string,
): Promise<string> {
  if (archive[0] !== GZIP_MAGIC[0] || archive[1] !== GZIP_MAGIC[1]) {
    throw new Error(
      `Model artifact ${source} is not a gzip archive: expected a model.tar.gz with the model at its root`,
    );
  }
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const archivePath = `${directory}.tar.gz`;
  try {
    await writeFile(archivePath, archive);
    await extractTar({ file: archivePath, cwd: directory, strict: true });
  } catch (error) {
    throw new Error(
      `Model artifact ${source} could not be extracted: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    await rm(archivePath, { force: true });
  }
  return findModelFile(directory);
}

/** At most this many files are read from a model prefix: more is not a model this server serves. */
const MAX_PREFIX_FILES = 1000;

/**
 * Copies the objects under an S3 prefix (a model's uncompressed files, as an optimization job reads
 * its source) into `directory` (created, emptied first), each at its key relative to the prefix, as
 * SageMaker lays out an `S3Prefix` model in `/opt/ml/model`, and returns the ONNX model file found there.
 */
export async function copyModelPrefix(
  store: ObjectStore,
  prefixUri: string,
  directory: string,
): Promise<string> {
  const listing = await store.list(prefixUri, MAX_PREFIX_FILES);
  if (listing.truncated || listing.uris.length === 0) {
    throw new Error(
      `Model prefix ${prefixUri} holds ${listing.uris.length === 0 ? 'no objects' : `more than ${MAX_PREFIX_FILES} objects`}: ` +
        `expected the model's files (at most ${MAX_PREFIX_FILES})`,
    );
  }
  await rm(directory, { recursive: true, force: true });
  await mkdir(directory, { recursive: true });
  const root = resolve(directory);
  for (const uri of listing.uris) {
    const target = resolve(root, uri.slice(prefixUri.length));
    // A key is a name, not a path: one that resolves outside the folder is refused.
    if (relative(root, target).startsWith('..')) {
      throw new Error(`Model prefix ${prefixUri} holds ${uri}, whose key leaves the model folder`);
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, await store.getBytes(uri));
  }
  return findModelFile(join(root));
}
