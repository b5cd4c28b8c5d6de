import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { buildModelArchive, unpackModelArchive } from '../../deployment/index.js';
import type { PackagedModel, PackageModelEvent } from '../../contracts/index.js';
import type { Logger, ObjectStore } from '../../ports/index.js';

export interface PackageModelDeps {
  readonly store: ObjectStore;
  readonly logger: Logger;
}

/**
 * Part of the inputs' digest: an archive built by an older layout (a packaged model nested as one
 * file instead of unpacked at the root) never counts as already built.
 */
const ARCHIVE_LAYOUT = 'model-at-root/2';

/**
 * State "Package model": builds `model.tar.gz` in the layout SageMaker and Neo expect — the model
 * at the archive root (a packaged model's contents, unpacked) and inference code under `code/` —
 * and writes it with a checksum.
 * A retry, or a second run over the same inputs, finds the checksum and reuses the archive.
 */
export async function packageModel(event: PackageModelEvent, deps: PackageModelDeps): Promise<PackagedModel> {
  const packaged = await packageArchive(event, deps);
  const optimizes = event.plan.compilations.some((compilation) => compilation.optimization !== undefined);
  if (!optimizes || packaged.modelDataUrl === undefined) return packaged;
  const modelPrefixUri = await unpackForOptimization(packaged.modelDataUrl, event.plan.runPrefixUri, deps);
  return { ...packaged, modelPrefixUri };
}

/** The model.tar.gz: built, found from an earlier run over the same inputs, or the user's own. */
async function packageArchive(event: PackageModelEvent, deps: PackageModelDeps): Promise<PackagedModel> {
  const model = event.plan.model;
  if (model === undefined) return { reused: true };
  // A Hub model without inference code has no model data: the container downloads the model.
  if (model.packagedUri === undefined) return { reused: true };
  if (!model.needsPackaging) return { modelDataUrl: model.packagedUri, reused: true };
  const packagedUri = model.packagedUri;

  // A Hub model with inference code is packaged as the code alone (`code/` and nothing at the root).
  const modelBytes =
    model.artifactUri === undefined ? undefined : await deps.store.getBytes(model.artifactUri);
  const codeBytes =
    model.inferenceCodeUri === undefined ? undefined : await deps.store.getBytes(model.inferenceCodeUri);
  const inputsDigest = createHash('sha256')
    .update(modelBytes ?? new Uint8Array())
    .update(codeBytes ?? new Uint8Array())
    .update(model.artifactUri === undefined ? '' : basename(model.artifactUri))
    .update(ARCHIVE_LAYOUT)
    .digest('hex');
  const checksumUri = `${packagedUri}.sha256`;
  if (
    (await deps.store.head(packagedUri)) !== undefined &&
    (await deps.store.head(checksumUri)) !== undefined
  ) {
    const recorded = JSON.parse(new TextDecoder().decode(await deps.store.getBytes(checksumUri))) as {
      inputsSha256?: string;
      sha256?: string;
      sizeBytes?: number;
    };
    if (recorded.inputsSha256 === inputsDigest && recorded.sha256 !== undefined) {
      deps.logger.info('Reusing packaged model', { modelDataUrl: packagedUri });
      return {
        modelDataUrl: packagedUri,
        sha256: recorded.sha256,
        sizeBytes: recorded.sizeBytes ?? 0,
        reused: true,
      };
    }
  }

  const archive = await buildModelArchive({
    ...(modelBytes === undefined || model.artifactUri === undefined
      ? {}
      : { modelFileName: basename(model.artifactUri), modelBytes }),
    ...(codeBytes === undefined || model.inferenceCodeUri === undefined
      ? {}
      : { code: { fileName: basename(model.inferenceCodeUri), bytes: codeBytes } }),
  });
  const sha256 = createHash('sha256').update(archive).digest('hex');
  await deps.store.putBytes(packagedUri, archive, 'application/gzip');
  await deps.store.putBytes(
    checksumUri,
    new TextEncoder().encode(
      JSON.stringify({ inputsSha256: inputsDigest, sha256, sizeBytes: archive.byteLength }),
    ),
    'application/json',
  );
  deps.logger.info('Packaged model', {
    modelDataUrl: packagedUri,
    sizeBytes: archive.byteLength,
    sha256,
  });
  return { modelDataUrl: packagedUri, sha256, sizeBytes: archive.byteLength, reused: false };
}

/**
 * An optimization job reads its source model as an S3 prefix of uncompressed files: CreateOptimizationJob's
 * `ModelSource.S3.S3Uri` is only "an Amazon S3 URI that locates a source model" (SageMaker API
 * reference, OptimizationJobModelSourceS3), and the SageMaker Python SDK always passes it one:
 * `ModelBuilder._optimize_prepare_for_hf` uploads the model's files uncompressed and
 * `_generate_model_source` passes that `S3Prefix` location (aws/sagemaker-python-sdk,
 * src/sagemaker/serve/builder/model_builder.py and src/sagemaker/serve/utils/optimize_utils.py), as
 * the optimized model it writes is such a prefix too. The archive's files are written under
 * `<run prefix>/model/files/`, with the archive's checksum beside the folder (never inside it, where
 * the job would read it as a model file), so a retry or a second optimization finds them written.
 */
async function unpackForOptimization(
  archiveUri: string,
  runPrefixUri: string,
  deps: PackageModelDeps,
): Promise<string> {
  const prefixUri = `${runPrefixUri}model/files/`;
  const markerUri = `${runPrefixUri}model/files.sha256`;
  const archive = await deps.store.getBytes(archiveUri);
  const sha256 = createHash('sha256').update(archive).digest('hex');
  if ((await deps.store.head(markerUri)) !== undefined) {
    const recorded = new TextDecoder().decode(await deps.store.getBytes(markerUri)).trim();
    if (recorded === sha256) {
      deps.logger.info('Reusing unpacked model', { modelPrefixUri: prefixUri });
      return prefixUri;
    }
  }
  const files = await unpackModelArchive(archive, 'model.artifactUri', basename(archiveUri));
  for (const file of files) await deps.store.putBytes(`${prefixUri}${file.path}`, file.bytes);
  // Written last: the folder counts as complete only once every file is.
  await deps.store.putBytes(markerUri, new TextEncoder().encode(sha256), 'text/plain');
  deps.logger.info('Unpacked model for optimization', { modelPrefixUri: prefixUri, files: files.length });
  return prefixUri;
}
