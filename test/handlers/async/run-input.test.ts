import { describe, expect, it } from '@jest/globals';
import { ASYNC_RUN_DEFAULTS, parseAsyncRunInput } from '../../../handlers/async/run-input.js';
import { InvalidRunInputError } from '../../../handlers/contracts/errors.js';

function issuesOf(input: unknown): string[] {
  try {
    parseAsyncRunInput(input);
  } catch (error) {
    if (error instanceof InvalidRunInputError)
      return error.issues.map((i) => `${i.field}: got ${i.given}, expected ${i.expected}`);
    throw error;
  }
  throw new Error('expected the input to be rejected');
}

describe('parseAsyncRunInput', () => {
  it('fills the defaults of a minimal input', () => {
    // Act
    const input = parseAsyncRunInput({
      endpointName: 'my-async-endpoint',
      inputs: ['s3://my-bucket/in/1.json'],
    });

    // Assert
    expect(input).toEqual({
      endpointName: 'my-async-endpoint',
      inputs: ['s3://my-bucket/in/1.json'],
      contentType: 'application/json',
      maxConcurrency: 10,
      invocationTimeoutSeconds: 900,
      waitTimeoutSeconds: ASYNC_RUN_DEFAULTS.waitTimeoutSeconds,
    });
  });

  it('accepts an input prefix instead of a list', () => {
    const input = parseAsyncRunInput({ endpointName: 'e', inputPrefix: 's3://my-bucket/batch-7/' });

    expect(input.inputPrefix).toBe('s3://my-bucket/batch-7/');
  });

  it('fails when neither inputs nor inputPrefix is given', () => {
    expect(issuesOf({ endpointName: 'e' })).toEqual([
      'inputs: got nothing, expected exactly one of `inputs` (a list of URIs) and `inputPrefix` (a prefix URI)',
    ]);
  });

  it('fails when both inputs and inputPrefix are given', () => {
    expect(
      issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], inputPrefix: 's3://my-bucket/b/' }),
    ).toEqual([
      'inputPrefix: got "s3://my-bucket/b/", expected exactly one of `inputs` (a list of URIs) and `inputPrefix` (a prefix URI)',
    ]);
  });

  it('fails when there are more inputs than one run allows', () => {
    const inputs = Array.from({ length: 1001 }, (_, i) => `s3://my-bucket/in/${i}.json`);

    expect(issuesOf({ endpointName: 'e', inputs })[0]).toMatch(
      /^inputs: got .*, expected at most 1000 inputs/,
    );
  });

  it('fails when an input is not an object URI, naming its position', () => {
    expect(
      issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/ok.json', 'https://example.com/x'] }),
    ).toEqual([
      'inputs[1]: got "https://example.com/x", expected an object URI such as s3://my-bucket/inputs/0001.json (file:///… only in local mode)',
    ]);
  });

  it('fails when the prefix does not end with a slash', () => {
    expect(issuesOf({ endpointName: 'e', inputPrefix: 's3://my-bucket/batch' })[0]).toMatch(
      /^inputPrefix: got "s3:\/\/my-bucket\/batch", expected a prefix URI ending with "\/"/,
    );
  });

  it('fails when the invocation timeout is above SageMaker limit of 3600 s', () => {
    expect(
      issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], invocationTimeoutSeconds: 7200 }),
    ).toEqual(['invocationTimeoutSeconds: got 7200, expected number to be <=3600']);
  });

  it('fails when the wait is not longer than the invocation timeout', () => {
    expect(
      issuesOf({
        endpointName: 'e',
        inputs: ['s3://my-bucket/a'],
        invocationTimeoutSeconds: 900,
        waitTimeoutSeconds: 600,
      }),
    ).toEqual([
      "waitTimeoutSeconds: got 600, expected more than invocationTimeoutSeconds (900): the wait must outlast SageMaker's processing",
    ]);
  });

  it('fails when the heartbeat is not shorter than the wait', () => {
    expect(
      issuesOf({
        endpointName: 'e',
        inputs: ['s3://my-bucket/a'],
        waitTimeoutSeconds: 3600,
        heartbeatSeconds: 3600,
      }),
    ).toEqual(['heartbeatSeconds: got 3600, expected less than waitTimeoutSeconds (3600)']);
  });

  it('fails when the concurrency exceeds what an inline Map runs at once', () => {
    expect(issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], maxConcurrency: 41 })).toEqual([
      'maxConcurrency: got 41, expected number to be <=40',
    ]);
  });

  it('fails when a field is unknown', () => {
    expect(issuesOf({ endpointName: 'e', inputs: ['s3://my-bucket/a'], concurrency: 5 })).toEqual([
      '(input): got unknown field(s) "concurrency", expected only the documented fields (check the spelling)',
    ]);
  });
});
