import { gzipSync } from 'node:zlib';
import { describe, expect, it } from '@jest/globals';
import { type InputIssue, TransientServiceError } from '../../../core/contracts/errors.js';
import { OBJECT_KEY_EXPECTED } from '../../../core/contracts/object-uri.js';
import {
  capIssues,
  checkObjects,
  OBJECT_CHECK_LIMITS,
  objectUriIssues,
} from '../../../core/planning/object-checks.js';
import type { ObjectMetadata } from '../../../core/ports/index.js';
import { MemoryObjectStore } from '../../support/memory-object-store.js';

const MODEL = 's3://mso-artifacts/models/cnn/model.tar.gz';
const NOT_GZIP =
  'a gzip-compressed tar archive (SageMaker unpacks ModelDataUrl as one): create it with tar -czf model.tar.gz …';

describe('objectUriIssues: keys are plain names', () => {
  it.each<[string, string, string, string | undefined]>([
    // [what, uri, the problem named, the normalised URI suggested]
    ['a ".." segment', 's3://b1/inputs/../secret.json', 'a ".." segment', 's3://b1/secret.json'],
    ['a "." segment', 's3://b1/inputs/./1.json', 'a "." segment', 's3://b1/inputs/1.json'],
    [
      'a double slash',
      's3://b1/inputs//1.json',
      'an empty segment ("//", or "/" at the start or end of the key)',
      's3://b1/inputs/1.json',
    ],
    [
      'a key starting with "/"',
      's3://b1//inputs/1.json',
      'an empty segment ("//", or "/" at the start or end of the key)',
      's3://b1/inputs/1.json',
    ],
    ['a backslash', 's3://b1/inputs\\1.json', 'a backslash', 's3://b1/inputs/1.json'],
    ['a newline', 's3://b1/inputs/1\n.json', 'a control character (U+000A)', 's3://b1/inputs/1.json'],
    ['a DEL', 's3://b1/inputs/1\u007f.json', 'a control character (U+007F)', 's3://b1/inputs/1.json'],
    ['a ".." in a local path', 'file:///tmp/in/../1.json', 'a ".." segment', 'file:///tmp/1.json'],
    ['a key that resolves to nothing', 's3://b1/..', 'a ".." segment', undefined],
  ])('refuses %s, naming the problem and the key meant', (_what, uri, problem, normalised) => {
    // Act
    const issues = objectUriIssues([{ field: 'inputs[3]', uri }]);

    // Assert
    expect(issues).toEqual([
      {
        field: 'inputs[3]',
        given: `${JSON.stringify(uri)} (${problem})`,
        expected:
          normalised === undefined
            ? OBJECT_KEY_EXPECTED
            : `${OBJECT_KEY_EXPECTED}, e.g. ${JSON.stringify(normalised)}`,
      },
    ]);
  });

  it.each([
    ['a nested key', 's3://b1/inputs/2026/05/1.json'],
    ['dots inside a name', 's3://b1/inputs/v1..2/a.b.json'],
    ['a local path', 'file:///tmp/in/1.json'],
  ])('accepts %s', (_what, uri) => {
    expect(objectUriIssues([{ field: 'inputs[0]', uri }])).toEqual([]);
  });

  it('accepts a prefix ending with "/", and the bucket root as a prefix', () => {
    expect(
      objectUriIssues(
        [
          { field: 'inputPrefix', uri: 's3://b1/inputs/batch-7/' },
          { field: 'inputPrefix', uri: 's3://b1/' },
        ],
        'prefix',
      ),
    ).toEqual([]);
  });

  it('refuses a model archive whose name does not end with .tar.gz', () => {
    // Act
    const issues = objectUriIssues([
      { field: 'endpoint.modelDataUrl', uri: 's3://b1/models/model.onnx', shape: 'model-archive' },
    ]);

    // Assert
    expect(issues).toEqual([
      {
        field: 'endpoint.modelDataUrl',
        given: '"s3://b1/models/model.onnx"',
        expected:
          'a model archive whose name ends with ".tar.gz" (SageMaker\'s ModelDataUrl must be one gzip-compressed ' +
          'tar archive); package the model with tar -czf model.tar.gz, or let an optimization run package it',
      },
    ]);
  });
});

describe('checkObjects', () => {
  it('refuses every missing object at once, in the order of the references', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed('s3://b1/inputs/1.json', '{}');
    const references = ['0', '1', '2'].map((name, index) => ({
      field: `inputs[${index}]`,
      uri: `s3://b1/inputs/${name}.json`,
    }));

    // Act
    const { issues } = await checkObjects(references, store);

    // Assert
    expect(issues).toEqual([
      {
        field: 'inputs[0]',
        given: '"s3://b1/inputs/0.json"',
        expected: 'an object that exists and that the workflow can read',
      },
      {
        field: 'inputs[2]',
        given: '"s3://b1/inputs/2.json"',
        expected: 'an object that exists and that the workflow can read',
      },
    ]);
  });

  it.each<[string, Uint8Array | string, string | undefined]>([
    ['accepts a gzip archive', gzipSync('tar'), undefined],
    [
      'refuses a plain tar',
      'model.onnx\u0000\u0000',
      '"s3://mso-artifacts/models/cnn/model.tar.gz" (it starts with the bytes 6d 6f, not gzip\'s 1f 8b)',
    ],
    [
      'refuses a zip',
      new Uint8Array([0x50, 0x4b, 0x03, 0x04]),
      '"s3://mso-artifacts/models/cnn/model.tar.gz" (it starts with the bytes 50 4b, not gzip\'s 1f 8b)',
    ],
    ['refuses an empty object', '', '"s3://mso-artifacts/models/cnn/model.tar.gz" (0 bytes)'],
  ])('%s as a model archive', async (_what, body, given) => {
    // Prepare
    const store = new MemoryObjectStore().seed(MODEL, body);

    // Act
    const { issues } = await checkObjects(
      [{ field: 'endpoint.modelDataUrl', uri: MODEL, shape: 'model-archive' }],
      store,
    );

    // Assert
    expect(issues).toEqual(
      given === undefined ? [] : [{ field: 'endpoint.modelDataUrl', given, expected: NOT_GZIP }],
    );
  });

  it('refuses an object larger than the service that reads it takes, naming the limit', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed('s3://b1/payload.json', '{"x": 1}');

    // Act
    const { issues } = await checkObjects(
      [{ field: 'payload.uri', uri: 's3://b1/payload.json', maxBytes: { bytes: 4, limit: 'a test limit' } }],
      store,
    );

    // Assert
    expect(issues).toEqual([
      {
        field: 'payload.uri',
        given: '"s3://b1/payload.json" (8 bytes)',
        expected: 'at most 4 bytes (a test limit)',
      },
    ]);
  });

  it('fails with the TransientServiceError of a throttled head rather than refusing the input', async () => {
    // Prepare
    const store = new MemoryObjectStore();
    const throttled = new TransientServiceError('HeadObject s3://b1/1.json failed: SlowDown');
    store.head = () => Promise.reject(throttled);

    // Act
    const check = checkObjects([{ field: 'inputs[0]', uri: 's3://b1/1.json' }], store);

    // Assert
    await expect(check).rejects.toBe(throttled);
  });

  it(`heads at most ${OBJECT_CHECK_LIMITS.concurrency} objects at once`, async () => {
    // Prepare: a store that answers after a tick and counts the heads in flight.
    const store = new MemoryObjectStore();
    let inFlight = 0;
    let most = 0;
    store.head = async (): Promise<ObjectMetadata> => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      inFlight -= 1;
      return { sizeBytes: 1 };
    };
    const references = Array.from({ length: 100 }, (_, i) => ({
      field: `inputs[${i}]`,
      uri: `s3://b1/${i}`,
    }));

    // Act
    const { issues, metadata } = await checkObjects(references, store);

    // Assert
    expect(issues).toEqual([]);
    expect(metadata).toHaveLength(100);
    expect(most).toBe(OBJECT_CHECK_LIMITS.concurrency);
  });
});

describe('capIssues', () => {
  const issue = (index: number): InputIssue => ({
    field: `inputs[${index}]`,
    given: `"s3://b1/${index}"`,
    expected: 'an object that exists and that the workflow can read',
  });

  it('keeps 20 issues as they are', () => {
    const issues = Array.from({ length: 20 }, (_, i) => issue(i));
    expect(capIssues(issues)).toEqual(issues);
  });

  it('lists the first 20 of 30 issues, then one that counts the other 10 and names their fields', () => {
    // Prepare
    const issues = Array.from({ length: 30 }, (_, i) => issue(i));

    // Act
    const capped = capIssues(issues);

    // Assert
    expect(capped).toEqual([
      ...issues.slice(0, 20),
      {
        field: 'inputs[20] … inputs[29]',
        given: '10 more problem(s) like the ones above, not listed one by one',
        expected: 'the same fix for each: correct the ones listed, then run again to see any left',
      },
    ]);
  });
});
