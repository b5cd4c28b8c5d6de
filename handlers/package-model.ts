import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { create as createTar, extract as extractTar } from 'tar';
import type { RunPlan } from './validate-and-plan.js';
import type { Logger, ObjectStore } from './ports.js';

export interface PackageModelEvent {
  readonly plan: Pick<RunPlan, 'runId' | 'model'>;
}

export interface PackagedModel {
  /** `undefined` when the run tests an existing endpoint and has no model. */
  readonly modelDataUrl?: string;
  readonly sha256?: string;
  readonly sizeBytes?: number;
  /** True when an artifact made earlier (same inputs) or the user's own model.tar.gz was used. */
  readonly reused: boolean;
}

export interface PackageModelDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

/** A fixed modification time makes the archive, and so its checksum, depend on the content only. */
const FIXED_MTIME = new Date('2020-01-01T00:00:00Z');

/**
 * State "Package model": builds `model.tar.gz` in the layout SageMaker and Neo expect — the model
 * file at the archive root and inference code under `code/` — and writes it with a checksum.
 * A retry, or a second run over the same inputs, finds the checksum and reuses the archive.
 */
export async function packageModel(event: PackageModelEvent, deps: PackageModelDeps): Promise<PackagedModel> {
  const model = event.plan.model;
  if (model === undefined) return { reused: true };
  if (!model.needsPackaging) return { modelDataUrl: model.packagedUri, reused: true };

  const modelBytes = await deps.store.getBytes(model.artifactUri);
  const codeBytes =
    model.inferenceCodeUri === undefined ? undefined : await deps.store.getBytes(model.inferenceCodeUri);
  const inputsDigest = createHash('sha256')
    .update(modelBytes)
    .update(codeBytes ?? new Uint8Array())
    .update(basename(model.artifactUri))
    .digest('hex');
  const checksumUri = `${model.packagedUri}.sha256`;
  if (
    (await deps.store.head(model.packagedUri)) !== undefined &&
    (await deps.store.head(checksumUri)) !== undefined
  ) {
    const recorded = JSON.parse(new TextDecoder().decode(await deps.store.getBytes(checksumUri))) as {
      inputsSha256?: string;
      sha256?: string;
      sizeBytes?: number;
    };
    if (recorded.inputsSha256 === inputsDigest && recorded.sha256 !== undefined) {
      deps.logger.info('Reusing packaged model', { modelDataUrl: model.packagedUri });
      return {
        modelDataUrl: model.packagedUri,
        sha256: recorded.sha256,
        sizeBytes: recorded.sizeBytes ?? 0,
        reused: true,
      };
    }
  }

  const archive = await buildModelArchive({
    modelFileName: basename(model.artifactUri),
    modelBytes,
    ...(codeBytes === undefined || model.inferenceCodeUri === undefined
      ? {}
      : { code: { fileName: basename(model.inferenceCodeUri), bytes: codeBytes } }),
  });
  const sha256 = createHash('sha256').update(archive).digest('hex');
  await deps.store.putBytes(model.packagedUri, archive, 'application/gzip');
  await deps.store.putBytes(
    checksumUri,
    new TextEncoder().encode(
      JSON.stringify({ inputsSha256: inputsDigest, sha256, sizeBytes: archive.byteLength }),
    ),
    'application/json',
  );
  deps.logger.info('Packaged model', {
    modelDataUrl: model.packagedUri,
    sizeBytes: archive.byteLength,
    sha256,
  });
  return { modelDataUrl: model.packagedUri, sha256, sizeBytes: archive.byteLength, reused: false };
}

export interface ModelArchiveParts {
  readonly modelFileName: string;
  readonly modelBytes: Uint8Array;
  /** One `.py` file, or a `.tar.gz` of a code folder, placed under `code/`. */
  readonly code?: { readonly fileName: string; readonly bytes: Uint8Array };
}

/** Builds a deterministic `model.tar.gz` (sorted entries, fixed times, no owners). */
export async function buildModelArchive(parts: ModelArchiveParts): Promise<Uint8Array> {
  const workDir = await mkdtemp(join(tmpdir(), 'mso-package-'));
  try {
    const root = join(workDir, 'root');
    await mkdir(root);
    await writeFile(join(root, parts.modelFileName), parts.modelBytes);
    if (parts.code !== undefined) {
      const codeDir = join(root, 'code');
      await mkdir(codeDir);
      if (/\.(tar\.gz|tgz)$/.test(parts.code.fileName)) {
        const codeArchive = join(workDir, 'code.tar.gz');
        await writeFile(codeArchive, parts.code.bytes);
        await extractTar({ file: codeArchive, cwd: codeDir, strict: true });
      } else {
        await writeFile(join(codeDir, parts.code.fileName), parts.code.bytes);
      }
    }
    const entries = (await readdir(root)).sort();
    const archivePath = join(workDir, 'model.tar.gz');
    await createTar(
      { file: archivePath, cwd: root, gzip: { level: 6 }, portable: true, mtime: FIXED_MTIME },
      entries,
    );
    return new Uint8Array(await readFile(archivePath));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
