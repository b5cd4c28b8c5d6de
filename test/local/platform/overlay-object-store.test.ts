import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { OverlayObjectStore } from '../../../local/platform/overlay-object-store.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'overlay-object-store-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (body: Uint8Array): string => new TextDecoder().decode(body);

/** A store over `<root>/store` with one file already there: s3://bucket/inputs/b.bin. */
async function storeWithFile(): Promise<OverlayObjectStore> {
  await mkdir(join(root, 'store', 'bucket', 'inputs'), { recursive: true });
  await writeFile(join(root, 'store', 'bucket', 'inputs', 'b.bin'), 'file b');
  return new OverlayObjectStore({ rootDir: join(root, 'store') });
}

describe('OverlayObjectStore', () => {
  it('keeps writes in memory: no file is created', async () => {
    // Prepare
    const store = await storeWithFile();

    // Act
    await store.putBytes('s3://bucket/inputs/a.bin', bytes('memory a'));

    // Assert
    expect(await readdir(join(root, 'store', 'bucket', 'inputs'))).toEqual(['b.bin']);
    expect(store.writtenUris()).toEqual(['s3://bucket/inputs/a.bin']);
  });

  it('reads what was written and what the files hold', async () => {
    // Prepare
    const store = await storeWithFile();
    await store.putBytes('s3://bucket/inputs/a.bin', bytes('memory a'));

    // Act
    const read = [
      text(await store.getBytes('s3://bucket/inputs/a.bin')),
      text(await store.getFirstBytes('s3://bucket/inputs/a.bin', 6)),
      text(await store.getBytes('s3://bucket/inputs/b.bin')),
      await store.head('s3://bucket/inputs/a.bin'),
    ];

    // Assert
    expect(read).toEqual(['memory a', 'memory', 'file b', { sizeBytes: 8 }]);
  });

  it('lists files and written objects together, in key order, within the limit', async () => {
    // Prepare
    const store = await storeWithFile();
    await store.putBytes('s3://bucket/inputs/c.bin', bytes('c'));
    await store.putBytes('s3://bucket/inputs/a.bin', bytes('a'));

    // Act
    const listing = await store.list('s3://bucket/inputs/', 2);

    // Assert
    expect(listing).toEqual({
      uris: ['s3://bucket/inputs/a.bin', 's3://bucket/inputs/b.bin'],
      truncated: true,
    });
  });

  it('refuses to write a file:// URI, as the file store does', async () => {
    // Prepare
    const store = await storeWithFile();

    // Act
    const write = store.putBytes('file:///tmp/x.bin', bytes('x'));

    // Assert
    await expect(write).rejects.toThrow(
      'Refusing to write file:///tmp/x.bin: file:// URIs name your own files, which local mode only reads; expected an s3:// URI',
    );
  });
});
