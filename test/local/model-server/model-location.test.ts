import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';

import { ResourceNotFoundError } from '../../../core/contracts/errors.js';
import { InvalidServerConfigError } from '../../../local/model-server/errors.js';
import { findModelFile } from '../../../local/model-server/model-location.js';

describe('findModelFile', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'model-dir-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('picks model.onnx when the folder has several models', async () => {
    // Prepare
    await writeFile(join(dir, 'other.onnx'), '');
    await writeFile(join(dir, 'model.onnx'), '');

    // Act
    const path = await findModelFile(dir);

    // Assert
    expect(path).toBe(join(dir, 'model.onnx'));
  });

  it('picks the only *.onnx file under another name', async () => {
    // Prepare
    await writeFile(join(dir, 'resnet.onnx'), '');
    await writeFile(join(dir, 'labels.txt'), '');

    // Act
    const path = await findModelFile(dir);

    // Assert
    expect(path).toBe(join(dir, 'resnet.onnx'));
  });

  it('fails when the folder holds no ONNX file', async () => {
    // Prepare
    await writeFile(join(dir, 'labels.txt'), '');
    await mkdir(join(dir, 'code'));

    // Act
    const finding = findModelFile(dir);

    // Assert
    await expect(finding).rejects.toThrow(ResourceNotFoundError);
    await expect(finding).rejects.toThrow(
      `No ONNX model in ${dir} (SM_MODEL_DIR): found [labels.txt], expected model.onnx or a single *.onnx file`,
    );
  });

  it('fails when several ONNX files leave the choice ambiguous', async () => {
    // Prepare
    await writeFile(join(dir, 'a.onnx'), '');
    await writeFile(join(dir, 'b.onnx'), '');

    // Act
    const finding = findModelFile(dir);

    // Assert
    await expect(finding).rejects.toThrow(InvalidServerConfigError);
    await expect(finding).rejects.toThrow('containing [a.onnx, b.onnx]');
  });

  it('fails when the folder does not exist', async () => {
    // Act
    const finding = findModelFile(join(dir, 'missing'));

    // Assert
    await expect(finding).rejects.toThrow('cannot be read: expected a folder containing model.onnx');
  });
});
