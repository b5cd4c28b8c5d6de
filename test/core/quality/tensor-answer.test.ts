import { describe, expect, it } from '@jest/globals';
import { decodeTensorAnswer } from '../../../core/quality/index.js';
import { formatJsonResponse, formatRawResponse } from '../../../local/model-server/payload.js';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('decodeTensorAnswer', () => {
  it('reads the model server’s JSON answer, rows of logits under "predictions"', () => {
    // Prepare
    const body = formatJsonResponse(Float32Array.from([0.5, -1.25, 2, 0, 3.5, -0.75]), [2, 3]);

    // Act
    const decoded = decodeTensorAnswer({ body: encode(body), contentType: 'application/json' });

    // Assert
    expect(decoded).toEqual({
      ok: true,
      tensor: { shape: [2, 3], values: Float64Array.from([0.5, -1.25, 2, 0, 3.5, -0.75]) },
    });
  });

  it('reads the model server’s raw float32 answer with its X-Output-Shape', () => {
    // Prepare
    const body = formatRawResponse(Float32Array.from([0.5, -1.25, 2, 0]));

    // Act
    const decoded = decodeTensorAnswer({
      body,
      contentType: 'application/octet-stream',
      outputShape: '2,2',
    });

    // Assert
    expect(decoded).toEqual({
      ok: true,
      tensor: { shape: [2, 2], values: Float64Array.from([0.5, -1.25, 2, 0]) },
    });
  });

  it('reads a bare nested array, and Python’s NaN and Infinity words as non-finite numbers', () => {
    // Act
    const decoded = decodeTensorAnswer({ body: encode('[[1.5, NaN], [-Infinity, Infinity]]') });

    // Assert
    expect(decoded).toEqual({
      ok: true,
      tensor: {
        shape: [2, 2],
        values: Float64Array.from([1.5, Number.NaN, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY]),
      },
    });
  });

  it('keeps the word NaN inside a string a string, and refuses it as an element', () => {
    // Act
    const decoded = decodeTensorAnswer({ body: encode('{"predictions": [1, "NaN"]}') });

    // Assert
    expect(decoded).toEqual({
      ok: false,
      problem: 'not a tensor: predictions[1]: got the string "NaN", expected a number',
    });
  });

  it('fails when the rows of one answer have different lengths', () => {
    // Act
    const decoded = decodeTensorAnswer({ body: encode('{"predictions": [[1, 2], [3]]}') });

    // Assert
    expect(decoded).toEqual({
      ok: false,
      problem:
        'not a tensor: predictions[1]: got an array of 1, expected an array of 2 (rows of one answer have one shape)',
    });
  });

  it('fails when the answer is a classification pipeline’s labels rather than a tensor', () => {
    // Act
    const decoded = decodeTensorAnswer({ body: encode('[{"label": "cat", "score": 0.9}]') });

    // Assert
    expect(decoded).toEqual({
      ok: false,
      problem: 'not a tensor: answer[0]: got an object with keys [label, score], expected a number',
    });
  });

  it('fails when the body is empty', () => {
    // Act
    const decoded = decodeTensorAnswer({ body: new Uint8Array(), contentType: 'application/json' });

    // Assert
    expect(decoded).toEqual({ ok: false, problem: 'an empty body' });
  });

  it('fails when a raw body is not whole float32 elements', () => {
    // Act
    const decoded = decodeTensorAnswer({ body: new Uint8Array(6), contentType: 'application/octet-stream' });

    // Assert
    expect(decoded).toEqual({
      ok: false,
      problem: 'a raw body of 6 bytes: expected a multiple of 4 (little-endian float32 elements)',
    });
  });

  it('fails when the X-Output-Shape does not hold the raw body’s elements', () => {
    // Act
    const decoded = decodeTensorAnswer({
      body: formatRawResponse(Float32Array.from([1, 2, 3])),
      contentType: 'application/octet-stream; charset=binary',
      outputShape: '2,2',
    });

    // Assert
    expect(decoded).toEqual({
      ok: false,
      problem: 'an output shape of [2, 2] (4 elements) over a body of 3 float32 elements',
    });
  });
});
