import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { withLocalFiles } from '../../../local/cli/shared.js';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';

const CWD = resolve('/tmp/project');
const store = new FileObjectStore({
  rootDir: resolve(CWD, '.local-store'),
  mounts: { 's3://local-artifacts/runs/': resolve(CWD, 'runs') },
});

describe('withLocalFiles', () => {
  it('shows a local artifact URI as its file, relative to the working directory, keeping the sentence’s full stop', () => {
    // Act
    const text = withLocalFiles(
      'No recommendation: no candidate met the SLA. Report: s3://local-artifacts/runs/r1/report.html.',
      store,
      CWD,
    );

    // Assert
    expect(text).toBe('No recommendation: no candidate met the SLA. Report: runs/r1/report.html.');
  });

  it('shows an object outside the runs folder as its file in the store', () => {
    // Act
    const text = withLocalFiles('model s3://local-artifacts/models/cnn/model.onnx, uploaded', store, CWD);

    // Assert
    expect(text).toBe('model .local-store/local-artifacts/models/cnn/model.onnx, uploaded');
  });

  it('leaves other buckets and a URI the store refuses as they are', () => {
    // Act
    const text = withLocalFiles('s3://user-models/m.onnx and s3://local-artifacts/runs/../../x', store, CWD);

    // Assert
    expect(text).toBe('s3://user-models/m.onnx and s3://local-artifacts/runs/../../x');
  });
});
