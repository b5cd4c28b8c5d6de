import { describe, expect, it } from '@jest/globals';
import { resolve } from 'node:path';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';
import { reportFileOf } from '../../../local/environment/report-files.js';

const ROOT = resolve('/tmp/mso-store');
const RUNS = resolve('/tmp/mso-runs');
const store = new FileObjectStore({ rootDir: ROOT, mounts: { 's3://local-artifacts/runs/': RUNS } });
const REPORT = 's3://local-artifacts/runs/r1/report.json';

describe('reportFileOf', () => {
  it('gives a file of the run relative to the report’s folder', () => {
    // Act
    const file = reportFileOf(store)('s3://local-artifacts/runs/r1/load-tests/c5/result.json', REPORT);

    // Assert
    expect(file).toBe('load-tests/c5/result.json');
  });

  it('gives a file outside the report’s folder as an absolute path', () => {
    // Act
    const file = reportFileOf(store)('s3://local-artifacts/runs/r0/model/model.tar.gz', REPORT);

    // Assert
    expect(file).toBe(resolve(RUNS, 'r0/model/model.tar.gz'));
  });

  it('gives the user’s own file:/// model as its path', () => {
    // Act
    const file = reportFileOf(store)('file:///home/me/model.onnx', REPORT);

    // Assert
    expect(file).toBe('/home/me/model.onnx');
  });

  it('gives nothing for a URI the store has no file for', () => {
    // Act
    const file = reportFileOf(store)('s3://local-artifacts/runs/../../etc/passwd', REPORT);

    // Assert
    expect(file).toBeUndefined();
  });
});
