import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FileObjectStore } from '../../../local/adapters/file-object-store.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'file-object-store-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('FileObjectStore', () => {
  it('stores s3://bucket/key at <root>/<bucket>/<key>, the bucket layout', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: join(root, 'store') });

    // Act
    await store.putBytes('s3://local-artifacts/models/cnn/model.onnx', bytes('onnx'));

    // Assert
    expect(
      await readFile(join(root, 'store', 'local-artifacts', 'models', 'cnn', 'model.onnx'), 'utf8'),
    ).toBe('onnx');
    expect(new TextDecoder().decode(await store.getBytes('s3://local-artifacts/models/cnn/model.onnx'))).toBe(
      'onnx',
    );
  });

  it('stores a mounted prefix in its own folder, so run reports land in runs/<runId>/', async () => {
    // Prepare
    const store = new FileObjectStore({
      rootDir: join(root, 'store'),
      mounts: { 's3://local-artifacts/runs/': join(root, 'runs') },
    });

    // Act
    await store.putBytes('s3://local-artifacts/runs/r1/report.json', bytes('{}'));

    // Assert
    expect(await readFile(join(root, 'runs', 'r1', 'report.json'), 'utf8')).toBe('{}');
    expect(store.pathOf('s3://other-bucket/runs/r1/report.json')).toBe(
      join(root, 'store', 'other-bucket', 'runs', 'r1', 'report.json'),
    );
  });

  it('reads file:// URIs as the files they name', async () => {
    // Prepare
    const path = join(root, 'my-model.onnx');
    await writeFile(path, 'mine');
    const store = new FileObjectStore({ rootDir: join(root, 'store') });

    // Act
    const head = await store.head(`file://${path}`);
    const body = await store.getBytes(`file://${path}`);

    // Assert
    expect(head?.sizeBytes).toBe(4);
    expect(new TextDecoder().decode(body)).toBe('mine');
  });

  it('answers head with undefined for a missing object', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });

    // Act
    const head = await store.head('s3://local-artifacts/nothing/here.json');

    // Assert
    expect(head).toBeUndefined();
  });

  it('leaves no temporary file behind after a write', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });

    // Act
    await store.putBytes('s3://b1/a/x.json', bytes('1'));
    await store.putBytes('s3://b1/a/x.json', bytes('2'));

    // Assert
    expect(await readdir(join(root, 'b1', 'a'))).toEqual(['x.json']);
    expect(await readFile(join(root, 'b1', 'a', 'x.json'), 'utf8')).toBe('2');
  });

  it('fails when asked to write a file:// URI, naming it', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });

    // Act
    const write = store.putBytes(`file://${join(root, 'x.onnx')}`, bytes('x'));

    // Assert
    await expect(write).rejects.toThrow(/Refusing to write file:\/\/.*expected an s3:\/\/ URI/);
  });

  it('fails when a key climbs out of the store folder', () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: join(root, 'store') });

    // Act
    const escape = () => store.pathOf('s3://bucket/../../etc/passwd');

    // Assert
    expect(escape).toThrow(/leaves the store folder/);
  });

  it('fails when reading a missing object, naming the URI and the file', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });

    // Act
    const read = store.getBytes('s3://b1/missing.bin');

    // Assert
    await expect(read).rejects.toThrow(
      `No object at s3://b1/missing.bin (looked for the file ${join(root, 'b1', 'missing.bin')})`,
    );
  });
});
