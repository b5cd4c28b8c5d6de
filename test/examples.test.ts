import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInputSchema } from '../handlers/contracts/run-input.js';

const EXAMPLES_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'examples');
const awsExamples = readdirSync(EXAMPLES_DIR).filter(
  (file) => file.endsWith('.json') && !file.startsWith('local'),
);

describe('examples/', () => {
  it.each(awsExamples)('%s is a valid optimization run input', (file) => {
    // Prepare
    const document: unknown = JSON.parse(readFileSync(join(EXAMPLES_DIR, file), 'utf8'));

    // Act
    const result = runInputSchema.safeParse(document);

    // Assert
    expect(result.error?.issues ?? []).toEqual([]);
  });
});
