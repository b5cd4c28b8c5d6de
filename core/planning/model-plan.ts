import type { RunPlan, RunInput } from '../contracts/index.js';
import { s3Uri } from '../contracts/index.js';

/**
 * The model as the run uses it: where its packaged archive goes under the run's prefix, or the
 * artifact itself when it is already a model.tar.gz with no code to add.
 */
export function planModel(
  model: NonNullable<RunInput['model']>,
  bucket: string,
  runPrefix: string,
): NonNullable<RunPlan['model']> {
  const packagedUri = s3Uri(bucket, `${runPrefix}model/model.tar.gz`);
  if (model.artifactUri === undefined) {
    // A Hub model: no model data, unless inference code is given, which is packaged alone (`code/`).
    return model.inferenceCodeUri === undefined
      ? { ...model, needsPackaging: false }
      : { ...model, packagedUri, needsPackaging: true };
  }
  // An artifact that is already a model.tar.gz, with no code to add, is used as it is.
  const alreadyPackaged = /\.tar\.gz$/.test(model.artifactUri) && model.inferenceCodeUri === undefined;
  return {
    ...model,
    packagedUri: alreadyPackaged ? model.artifactUri : packagedUri,
    needsPackaging: !alreadyPackaged,
  };
}
