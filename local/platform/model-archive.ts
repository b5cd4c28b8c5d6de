import { mkdir, rm, writeFile } from 'node:fs/promises';
import { extract as extractTar } from 'tar';
import { findModelFile } from '../model-server/model-location.js';

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
