import { describe, expect, it } from '@jest/globals';

import type { InputSignature } from '../../../local/model-server/model-signature.js';
import {
  formatJsonResponse,
  formatRawResponse,
  parseSamples,
  PayloadError,
  requestFormat,
  responseFormat,
} from '../../../local/model-server/payload.js';

// A small model input: samples of shape [2, 3].
const input: InputSignature = {
  name: 'input',
  sampleShape: [2, 3],
  sampleSize: 6,
  batchDimension: 'dynamic',
};
const sampleA = [
  [1, 2, 3],
  [4, 5, 6],
];
const sampleB = [
  [7, 8, 9],
  [10, 11, 12],
];
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

function payloadError(action: () => unknown): PayloadError {
  try {
    action();
  } catch (error) {
    if (error instanceof PayloadError) return error;
    throw error;
  }
  throw new Error('expected a PayloadError');
}

describe('parseSamples (JSON)', () => {
  it('reads "inputs" holding one sample', () => {
    // Act
    const parsed = parseSamples('json', json({ inputs: sampleA }), input);

    // Assert
    expect(parsed.count).toBe(1);
    expect(Array.from(parsed.samples)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('reads "inputs" holding a batch', () => {
    // Act
    const parsed = parseSamples('json', json({ inputs: [sampleA, sampleB] }), input);

    // Assert
    expect(parsed.count).toBe(2);
    expect(Array.from(parsed.samples)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('reads "instances" as a list of samples', () => {
    // Act
    const parsed = parseSamples('json', json({ instances: [sampleB] }), input);

    // Assert
    expect(parsed.count).toBe(1);
    expect(Array.from(parsed.samples)).toEqual([7, 8, 9, 10, 11, 12]);
  });

  it('fails when a row has the wrong length, naming where and what was expected', () => {
    // Act
    const error = payloadError(() =>
      parseSamples(
        'json',
        json({
          instances: [
            sampleA,
            [
              [1, 2, 3],
              [4, 5],
            ],
          ],
        }),
        input,
      ),
    );

    // Assert
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe(
      'instances[1][1]: got an array of 2, expected an array of 3 (model input "input" takes samples of shape [2, 3])',
    );
  });

  it('fails when a value is not a number', () => {
    // Act
    const error = payloadError(() =>
      parseSamples(
        'json',
        json({
          inputs: [
            [1, 2, 'x'],
            [4, 5, 6],
          ],
        }),
        input,
      ),
    );

    // Assert
    expect(error.message).toBe('inputs[0][2]: got the string "x", expected a finite number');
  });

  it('fails when the body is not JSON', () => {
    // Act
    const error = payloadError(() => parseSamples('json', Buffer.from('{"inputs": [1,'), input));

    // Assert
    expect(error.statusCode).toBe(400);
    expect(error.message).toMatch(
      /^Body is not valid JSON \(.+\): expected \{"inputs": \.\.\.\} or \{"instances": \[\.\.\.\]\}$/,
    );
  });

  it('fails when neither or both of "inputs" and "instances" are given', () => {
    // Act
    const neither = payloadError(() => parseSamples('json', json({ data: sampleA }), input));
    const both = payloadError(() =>
      parseSamples('json', json({ inputs: sampleA, instances: [sampleA] }), input),
    );

    // Assert
    expect(neither.message).toContain(
      'JSON body an object with keys [data]: expected an object with exactly one of',
    );
    expect(both.message).toContain('an object with keys [inputs, instances]');
  });

  it('fails when "instances" is empty', () => {
    // Act
    const error = payloadError(() => parseSamples('json', json({ instances: [] }), input));

    // Assert
    expect(error.message).toBe(
      'instances: got an array of 0, expected a non-empty list of samples of shape [2, 3]',
    );
  });

  it('fails when a fixed-batch model gets another number of samples', () => {
    // Prepare
    const fixed: InputSignature = { ...input, batchDimension: 1 };

    // Act
    const error = payloadError(() => parseSamples('json', json({ instances: [sampleA, sampleB] }), fixed));

    // Assert
    expect(error.message).toBe(
      'Got 2 samples, expected exactly 1: model input "input" has a fixed batch dimension',
    );
  });
});

describe('parseSamples (raw float32)', () => {
  it('reads little-endian float32 samples', () => {
    // Prepare
    const body = Buffer.alloc(2 * 6 * 4);
    for (let i = 0; i < 12; i += 1) body.writeFloatLE(i + 0.5, i * 4);

    // Act
    const parsed = parseSamples('raw', body, input);

    // Assert
    expect(parsed.count).toBe(2);
    expect(Array.from(parsed.samples)).toEqual(Array.from({ length: 12 }, (_, i) => i + 0.5));
    expect(parsed.samples.byteOffset).toBe(0);
    expect(parsed.samples.buffer.byteLength).toBe(48);
  });

  it('fails when the length is not a multiple of one sample', () => {
    // Act
    const error = payloadError(() => parseSamples('raw', Buffer.alloc(30), input));

    // Assert
    expect(error.statusCode).toBe(400);
    expect(error.message).toBe(
      'Raw body has 30 bytes: expected a positive multiple of 24 bytes (N samples of shape [2, 3] little-endian float32)',
    );
  });

  it('fails when the body is empty', () => {
    // Act
    const error = payloadError(() => parseSamples('raw', Buffer.alloc(0), input));

    // Assert
    expect(error.message).toContain('Raw body has 0 bytes');
  });
});

describe('requestFormat', () => {
  it('accepts JSON with parameters and raw float32', () => {
    // Act & Assert
    expect(requestFormat('application/json; charset=utf-8')).toBe('json');
    expect(requestFormat('Application/Octet-Stream')).toBe('raw');
  });

  it('fails with 415 when the content type is missing or unsupported', () => {
    // Act
    const missing = payloadError(() => requestFormat(undefined));
    const csv = payloadError(() => requestFormat('text/csv'));

    // Assert
    expect(missing.statusCode).toBe(415);
    expect(missing.message).toBe(
      'Unsupported Content-Type: got none, expected application/json or application/octet-stream',
    );
    expect(csv.message).toContain('got "text/csv"');
  });
});

describe('responseFormat', () => {
  it('answers JSON by default and raw float32 when asked', () => {
    // Act & Assert
    expect(responseFormat(undefined)).toBe('json');
    expect(responseFormat('*/*')).toBe('json');
    expect(responseFormat('application/octet-stream')).toBe('raw');
    expect(responseFormat('text/html, application/octet-stream;q=0.9')).toBe('raw');
  });

  it('fails with 406 when no listed type is supported', () => {
    // Act
    const error = payloadError(() => responseFormat('text/csv'));

    // Assert
    expect(error.statusCode).toBe(406);
  });
});

describe('response formats', () => {
  it('nest JSON predictions one row per sample', () => {
    // Act
    const body = formatJsonResponse(Float32Array.from([0.5, 1, 1.5, 2, 2.5, 3]), [2, 3]);

    // Assert
    expect(JSON.parse(body)).toEqual({
      predictions: [
        [0.5, 1, 1.5],
        [2, 2.5, 3],
      ],
    });
  });

  it('write raw float32 little-endian', () => {
    // Act
    const body = formatRawResponse(Float32Array.from([1.25, -2]));

    // Assert
    expect(body).toHaveLength(8);
    expect(body.readFloatLE(0)).toBe(1.25);
    expect(body.readFloatLE(4)).toBe(-2);
  });
});
