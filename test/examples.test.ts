import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { asyncRunInputSchema } from '../handlers/async/run-input.js';
import { runInputSchema } from '../handlers/contracts/run-input.js';

const EXAMPLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const awsExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.startsWith('local'),
);
const optimizationExamples = awsExamples.filter((file) => !file.startsWith('async-'));
const asyncExamples = awsExamples.filter((file) => file.startsWith('async-'));

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
});
