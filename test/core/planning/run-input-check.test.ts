import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asyncRunInputSchema } from '../../../core/contracts/async-run-input.js';
import { runInputSchema } from '../../../core/contracts/run-input.js';
import { parseOrThrow } from '../../../core/contracts/validation.js';
import { parseAsyncRunInput } from '../../../core/planning/async-run-input-check.js';
import { parseRunInput } from '../../../core/planning/run-input-check.js';
import { REPO_ROOT, SOURCE_FOLDERS, sourcesUnder } from '../../support/module-graph.js';
import { issuesOf, minimalRunInput } from '../contracts/support/run-input-issues.js';

/** An instance type the catalog does not know, so the input must price it. */
const UNKNOWN_TYPE = 'ml.g6e.3xlarge';

const UNKNOWN_TYPE_ISSUE = {
  field: 'candidates[0].instanceType',
  given: `"${UNKNOWN_TYPE}"`,
  expected: `a SageMaker hosting instance type (ProductionVariantInstanceType), or a price in pricing.usdPerHour["${UNKNOWN_TYPE}"]`,
};

const HUB_ENDPOINT = {
  framework: 'huggingface',
  frameworkVersion: '4.50.0',
  pytorchVersion: '2.6.0',
  hub: { modelId: 'distilbert/distilbert-base-uncased-finetuned-sst-2-english' },
  instanceType: 'ml.m5.xlarge',
};

describe('parseRunInput', () => {
  it('reports the floor’s rules and the catalog’s together, from one parse', () => {
    // Prepare
    const input = minimalRunInput({
      payloads: [{ uri: 's3://mso-artifacts/models/cnn/payload.json' }],
      candidates: [{ instanceType: UNKNOWN_TYPE }],
    });

    // Act
    const issues = issuesOf(() => parseRunInput(input));

    // Assert
    expect(issues.map(({ field }) => field)).toEqual(['payloads', 'candidates[0].instanceType']);
    expect(issues[1]).toEqual(UNKNOWN_TYPE_ISSUE);
  });

  it('refuses what only the catalog refuses, which the floor’s schema alone accepts', () => {
    // Prepare
    const input = minimalRunInput({ candidates: [{ instanceType: UNKNOWN_TYPE }] });

    // Act
    const checked = issuesOf(() => parseRunInput(input));
    const floorOnly = issuesOf(() => parseOrThrow(runInputSchema, input));

    // Assert
    expect(checked).toEqual([UNKNOWN_TYPE_ISSUE]);
    expect(floorOnly).toEqual([]);
  });

  it('reads the input as the floor’s schema does', () => {
    // Prepare
    const input = minimalRunInput({
      model: {
        artifactUri: 's3://mso-artifacts/models/cnn/model.onnx',
        framework: 'onnx',
        inputShape: { input: [1, 3, 224, 224] },
      },
      compilation: { targets: ['ml_c5'] },
      candidates: [{ instanceType: 'ml.c5.xlarge', compiledFor: 'ml_c5' }],
    });

    // Act
    const checked = parseRunInput(input);

    // Assert
    expect(checked).toEqual(parseOrThrow(runInputSchema, input));
  });
});

describe('parseAsyncRunInput', () => {
  it('refuses a transformers version no Hugging Face DLC has, at the endpoint’s field', () => {
    // Prepare
    const input = { endpoint: HUB_ENDPOINT, inputs: ['s3://mso-artifacts/inputs/1.json'] };

    // Act
    const checked = issuesOf(() => parseAsyncRunInput(input));
    const floorOnly = issuesOf(() => parseOrThrow(asyncRunInputSchema, input));

    // Assert
    expect(checked.map(({ field, given }) => [field, given])).toEqual([
      ['endpoint.frameworkVersion', '"4.50.0"'],
    ]);
    expect(checked[0]?.expected).toMatch(/^a transformers version with a Hugging Face inference DLC/);
    expect(floorOnly).toEqual([]);
  });
});

describe('the entries’ run-input parse', () => {
  it('fails when a module parses a run input with the floor’s schema alone, which skips the catalog’s rules', () => {
    // Prepare
    const floorParse =
      /parseOrThrow\(\s*(runInputSchema|asyncRunInputSchema)\b|\b(runInputSchema|asyncRunInputSchema)\.(safeParse|parse)(Async)?\(/;

    // Act
    const parsing = SOURCE_FOLDERS.flatMap((folder) => sourcesUnder(folder)).filter((path) =>
      floorParse.test(readFileSync(join(REPO_ROOT, path), 'utf8')),
    );

    // Assert
    expect(parsing).toEqual([]);
  });
});
