import { describe, expect, it } from '@jest/globals';
import {
  firstBoundCrossing,
  firstTextDepthCrossing,
  INPUT_BOUNDS,
} from '../../../core/contracts/input-bounds.js';
import {
  describeGiven,
  inputBoundIssues,
  jsonTextBoundIssues,
  specialKeyIssues,
} from '../../../core/contracts/validation.js';

/** `levels` arrays, one inside the other, as JSON text. */
function nestedArraysText(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

/** `levels` objects `{ "a": … }`, one inside the other, built without recursion. */
function nestedObjects(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level += 1) value = { a: value };
  return value;
}

const DEPTH_EXPECTED =
  'at most 32 levels of nested objects and arrays (no run input field is nested more than a few levels deep)';

describe('inputBoundIssues', () => {
  it('fails when the input is nested 100,000 levels deep, naming the field at the first level beyond the bound', () => {
    // Prepare
    const input = { model: { environment: JSON.parse(nestedArraysText(100_000)) as unknown } };

    // Act
    const issues = inputBoundIssues(input);

    // Assert
    expect(issues).toEqual([
      {
        field: `model.environment${'[0]'.repeat(30)}`,
        given: 'an array at nesting level 33',
        expected: DEPTH_EXPECTED,
      },
    ]);
  });

  it('fails when objects are nested 100,000 levels deep', () => {
    // Act
    const issues = inputBoundIssues(nestedObjects(100_000));

    // Assert
    expect(issues).toEqual([
      { field: `a${'.a'.repeat(31)}`, given: 'an object at nesting level 33', expected: DEPTH_EXPECTED },
    ]);
  });

  it('accepts exactly 32 levels', () => {
    // Act / Assert
    expect(inputBoundIssues(nestedObjects(INPUT_BOUNDS.maxDepth))).toEqual([]);
  });

  it('fails when the input is larger than Step Functions’ execution input quota as JSON', () => {
    // Prepare: 262,144 bytes exactly is accepted, one more is not (a 2-byte "é" counts twice).
    const fits = { name: `${'é'.repeat((262_144 - '{"name":"x"}'.length) / 2)}x` };
    const over = { name: `${fits.name}x` };

    // Act / Assert
    expect(Buffer.byteLength(JSON.stringify(fits))).toBe(262_144);
    expect(inputBoundIssues(fits)).toEqual([]);
    expect(inputBoundIssues(over, ['input'])).toEqual([
      {
        field: 'input',
        given: 'more than 262144 bytes of JSON',
        expected:
          "at most 262144 bytes (Step Functions' execution input quota); put large lists (payloads, inputs) in S3 and name them by URI or prefix",
      },
    ]);
  });

  it('counts bytes as JSON.stringify writes them: escapes, surrogate pairs, omitted members', () => {
    // Prepare: strings whose JSON is longer than their text, and members JSON leaves out.
    const samples: unknown[] = [
      { text: 'quote " backslash \\ newline \n bell \u0007 emoji 😀 lone \ud800 end', n: -1.5e-7 },
      { kept: [true, false, null, 0], dropped: undefined, alsoDropped: () => 1 },
    ];

    // Act / Assert: a value is over the quota exactly when its JSON is.
    for (const sample of samples) {
      const bytes = Buffer.byteLength(JSON.stringify(sample));
      const padded = { pad: 'x'.repeat(262_144 - bytes - '{"pad":"","s":}'.length), s: sample };
      expect(Buffer.byteLength(JSON.stringify(padded))).toBe(262_144);
      expect(firstBoundCrossing(padded)).toBeUndefined();
      expect(firstBoundCrossing({ ...padded, pad: `${padded.pad}x` })).toEqual({ bound: 'size', path: [] });
    }
  });

  it('fails when an array holds more items than the quota has bytes, before visiting them', () => {
    // Prepare: a sparse array is long without holding anything.
    const input = { inputs: new Array<unknown>(1e9) };

    // Act / Assert
    expect(firstBoundCrossing(input)).toEqual({ bound: 'size', path: [] });
  });
});

describe('jsonTextBoundIssues', () => {
  it('fails when a text is nested 100,000 levels deep, before it is parsed', () => {
    // Prepare
    const text = `{"model":{"environment":${nestedArraysText(100_000)}}}`;

    // Act
    const issues = jsonTextBoundIssues(text);

    // Assert
    expect(issues).toEqual([
      {
        field: `model.environment${'[0]'.repeat(30)}`,
        given: 'an array at nesting level 33',
        expected: DEPTH_EXPECTED,
      },
    ]);
  });

  it('names the field as the parsed value would, past strings holding brackets, escapes and commas', () => {
    // Prepare: the deep value sits at candidates[2]["we\"ird, [key"] after decoys.
    const deep = nestedArraysText(40);
    const text =
      `{"name":"[[[{{{\\"","candidates":[{"a":"]"},[1,2],{"x":{"y":"}"},"we\\"ird, [key":${deep}}],` +
      `"tags":{}}`;
    const value: unknown = JSON.parse(text);

    // Act
    const fromText = jsonTextBoundIssues(text);
    const fromValue = inputBoundIssues(value);

    // Assert
    expect(fromText).toEqual(fromValue);
    expect(fromText[0]?.field).toBe(`candidates[2]["we\\"ird, [key"]${'[0]'.repeat(29)}`);
  });

  it('reports a crossing inside an API body at the run input’s own field', () => {
    // Prepare
    const body = `{"runId":"r1","input":{"model":${nestedArraysText(100)}}}`;

    // Act
    const issues = jsonTextBoundIssues(body, ['input']);

    // Assert
    expect(issues).toEqual([
      { field: `model${'[0]'.repeat(31)}`, given: 'an array at nesting level 33', expected: DEPTH_EXPECTED },
    ]);
  });

  it('accepts exactly 32 levels and leaves malformed JSON to JSON.parse', () => {
    // Act / Assert
    expect(firstTextDepthCrossing(nestedArraysText(32))).toBeUndefined();
    expect(firstTextDepthCrossing('{"a": [1, 2')).toBeUndefined();
  });
});

describe('specialKeyIssues', () => {
  it('names a special key at the bottom of a 32-level document, with its whole path', () => {
    // Prepare
    let value: unknown = JSON.parse('{"__proto__":{}}');
    for (let level = 0; level < 31; level += 1) value = [value];

    // Act
    const issues = specialKeyIssues(value, ['input']);

    // Assert
    expect(issues.map((issue) => issue.field)).toEqual([`input${'[0]'.repeat(31)}["__proto__"]`]);
  });
});

describe('describeGiven', () => {
  it('describes a value nested deeper than JSON.stringify can write, instead of throwing RangeError', () => {
    // Prepare
    const deep: unknown = JSON.parse(nestedArraysText(100_000));

    // Act / Assert
    expect(describeGiven(deep)).toBe('an array nested too deeply to show');
  });
});
