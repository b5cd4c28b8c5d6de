import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilationSupportIssues } from '../handlers/catalog/neo-support.js';
import { artifactPrefixProblem, RUN_INPUT_PREFIXES } from '../handlers/contracts/object-uri.js';
import { runInputSchema } from '../handlers/contracts/run-input.js';
import { takeLocalCalibration } from '../local/cli/calibration.js';
import { asyncRunInputSchema } from '../handlers/contracts/async-run-input.js';

const EXAMPLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const awsExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.startsWith('local'),
);
const optimizationExamples = awsExamples.filter((file) => !file.startsWith('async-'));
const compilingExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.includes('async'),
);
const asyncExamples = awsExamples.filter((file) => file.startsWith('async-'));

/** Every `s3://` string of a document, wherever it sits. */
function s3UrisIn(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith('s3://') ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(s3UrisIn);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(s3UrisIn);
  return [];
}

describe('examples/', () => {
  it('has async examples', () => {
    expect(asyncExamples.length).toBeGreaterThan(0);
  });

  it.each(asyncExamples)('%s is a valid async run input', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));

    // Act
    const result = asyncRunInputSchema.safeParse(document);

    // Assert
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(optimizationExamples)('%s is a valid optimization run input', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));

    // Act
    const result = runInputSchema.safeParse(document);

    // Assert
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it.each(compilingExamples)('%s compiles only what SageMaker Neo compiles for its targets', (file) => {
    // Prepare
    // As the CLI reads a local example: its local calibration taken out first.
    const input = runInputSchema.parse(
      takeLocalCalibration(JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'))).input,
    );
    const model = input.model;

    // Act
    const issues =
      model === undefined
        ? []
        : compilationSupportIssues({
            framework: model.framework,
            ...(model.frameworkVersion === undefined ? {} : { frameworkVersion: model.frameworkVersion }),
            ...(model.inputDataType === undefined ? {} : { inputDataType: model.inputDataType }),
            targets: input.compilation.targets,
          });

    // Assert
    expect(issues).toEqual([]);
  });

  it.each(awsExamples)('%s names objects only under the prefixes its workflow’s roles read', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));
    const prefixes = file.startsWith('async-') ? RUN_INPUT_PREFIXES.async : RUN_INPUT_PREFIXES.optimization;

    // Act
    const outside = s3UrisIn(document).filter(
      (uri) => artifactPrefixProblem(uri, 'your-artifacts-bucket', prefixes) !== undefined,
    );

    // Assert
    expect(outside).toEqual([]);
  });

  it('has a BERT example that compiles its int64 token ids as int64', () => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, 'bert-int64-gpu.json'), 'utf8'));

    // Act
    const input = runInputSchema.parse(document);

    // Assert
    expect([input.model?.inputDataType, input.compilation.targets]).toEqual(['int64', ['ml_g4dn', 'ml_c5']]);
  });
});
