import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FileObjectStore } from '../../../local/platform/file-object-store.js';

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

  it('reads only the first bytes of an object, fewer when it is shorter', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });
    await store.putBytes('s3://b1/models/m.tar.gz', bytes('abcdef'));
    await store.putBytes('s3://b1/models/one', bytes('a'));

    // Act
    const first = await store.getFirstBytes('s3://b1/models/m.tar.gz', 2);
    const short = await store.getFirstBytes('s3://b1/models/one', 2);

    // Assert
    expect(new TextDecoder().decode(first)).toBe('ab');
    expect(new TextDecoder().decode(short)).toBe('a');
  });

  it('fails when reading the first bytes of a missing object, naming the URI and the file', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });

    // Act
    const read = store.getFirstBytes('s3://b1/missing.tar.gz', 2);

    // Assert
    await expect(read).rejects.toThrow(
      `No object at s3://b1/missing.tar.gz (looked for the file ${join(root, 'b1', 'missing.tar.gz')})`,
    );
  });
});

describe('FileObjectStore.list', () => {
  it('lists the objects under a prefix in key order, nested keys included, folders not', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: join(root, 'store') });
    for (const key of ['inputs/0002.json', 'inputs/0001.json', 'inputs/sub/0003.json', 'other/0004.json']) {
      await store.putBytes(`s3://b1/${key}`, bytes(key));
    }

    // Act
    const listing = await store.list('s3://b1/inputs/', 10);

    // Assert
    expect(listing).toEqual({
      uris: ['s3://b1/inputs/0001.json', 's3://b1/inputs/0002.json', 's3://b1/inputs/sub/0003.json'],
      truncated: false,
    });
  });

  it('stops at the limit and says more exist', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: join(root, 'store') });
    for (const name of ['a', 'b', 'c']) await store.putBytes(`s3://b1/in/${name}`, bytes(name));

    // Act
    const listing = await store.list('s3://b1/in/', 2);

    // Assert
    expect(listing).toEqual({ uris: ['s3://b1/in/a', 's3://b1/in/b'], truncated: true });
  });

  it('filters by the part of the prefix after its last slash', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: join(root, 'store') });
    for (const name of ['run-1.json', 'run-2.json', 'walk-1.json'])
      await store.putBytes(`s3://b1/in/${name}`, bytes(name));

    // Act
    const listing = await store.list('s3://b1/in/run-', 10);

    // Assert
    expect(listing.uris).toEqual(['s3://b1/in/run-1.json', 's3://b1/in/run-2.json']);
  });

  it('lists a mounted prefix under its s3:// URIs, once', async () => {
    // Prepare
    const store = new FileObjectStore({
      rootDir: join(root, 'store'),
      mounts: { 's3://local-artifacts/runs/': join(root, 'runs') },
    });
    await store.putBytes('s3://local-artifacts/models/m.onnx', bytes('m'));
    await store.putBytes('s3://local-artifacts/runs/r1/report.json', bytes('{}'));

    // Act
    const bucket = await store.list('s3://local-artifacts/', 10);
    const runs = await store.list('s3://local-artifacts/runs/', 10);

    // Assert
    expect(bucket.uris).toEqual([
      's3://local-artifacts/models/m.onnx',
      's3://local-artifacts/runs/r1/report.json',
    ]);
    expect(runs.uris).toEqual(['s3://local-artifacts/runs/r1/report.json']);
  });

  it('leaves out half-written objects and answers an empty listing for a missing folder', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: root });
    await store.putBytes('s3://b1/in/done.bin', bytes('x'));
    await writeFile(join(root, 'b1', 'in', 'done.bin.partial-0b7e2f4c-8c1e-4d5a-9f00-123456789abc'), 'half');

    // Act
    const listing = await store.list('s3://b1/in/', 10);
    const missing = await store.list('s3://b1/nothing-here/', 10);

    // Assert
    expect(listing.uris).toEqual(['s3://b1/in/done.bin']);
    expect(missing).toEqual({ uris: [], truncated: false });
  });

  it('lists a file:/// folder of your own', async () => {
    // Prepare
    const store = new FileObjectStore({ rootDir: join(root, 'store') });
    await writeFile(join(root, 'input-1.json'), '{}');

    // Act
    const listing = await store.list(`file://${root}/input-`, 10);

    // Assert
    expect(listing.uris).toEqual([`file://${root}/input-1.json`]);
  });

  it('fails when the limit is not a positive integer', async () => {
    const store = new FileObjectStore({ rootDir: root });
    await expect(store.list('s3://b1/in/', 0)).rejects.toThrow(
      'list s3://b1/in/: limit got 0, expected an integer of at least 1',
    );
  });

  it('fails when the prefix is not an s3:// or file:/// URI', async () => {
    const store = new FileObjectStore({ rootDir: root });
    await expect(store.list('https://example.com/', 1)).rejects.toThrow(
      /expected s3:\/\/bucket\/ or file:\/\/\//,
    );
  });
});
