import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

import { ResourceNotFoundError } from '../../core/contracts/index.js';
import { InvalidServerConfigError } from './errors.js';
import { MODEL_SERVER_ENV } from './server-options.js';

export const DEFAULT_MODEL_FILE_NAME = 'model.onnx';

/**
 * The model file inside the model folder: `model.onnx` at its root, otherwise the only `*.onnx`
 * file there. SageMaker extracts `model.tar.gz` into the folder as-is, so the file keeps the name it
 * had in the archive.
 */
export async function findModelFile(modelDir: string): Promise<string> {
  let entries: string[];
  try {
    entries = (await readdir(modelDir, { withFileTypes: true }))
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);
  } catch (error) {
    throw new ResourceNotFoundError(
      `Model folder ${modelDir} (${MODEL_SERVER_ENV.modelDir}) cannot be read: expected a folder containing ${DEFAULT_MODEL_FILE_NAME}`,
      { modelDir },
      { cause: error },
    );
  }
  if (entries.includes(DEFAULT_MODEL_FILE_NAME)) return join(modelDir, DEFAULT_MODEL_FILE_NAME);
  const onnxFiles = entries.filter((name) => name.toLowerCase().endsWith('.onnx')).sort();
  const [onlyFile, ...others] = onnxFiles;
  if (onlyFile === undefined) {
    throw new ResourceNotFoundError(
      `No ONNX model in ${modelDir} (${MODEL_SERVER_ENV.modelDir}): found [${entries.join(', ')}], expected ${DEFAULT_MODEL_FILE_NAME} or a single *.onnx file`,
      { modelDir, files: entries },
    );
  }
  if (others.length > 0) {
    throw new InvalidServerConfigError([
      {
        field: MODEL_SERVER_ENV.modelDir,
        given: `${modelDir} containing [${onnxFiles.join(', ')}]`,
        expected: `a folder with ${DEFAULT_MODEL_FILE_NAME} or exactly one *.onnx file`,
      },
    ]);
  }
  return join(modelDir, onlyFile);
}
