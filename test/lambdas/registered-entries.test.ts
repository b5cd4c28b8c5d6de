import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { PROJECT_FUNCTION_NAMES } from '../../core/contracts/functions.js';
import { LAMBDA_ENTRY_DIRECTORY } from '../../infra/constructs/paths.js';

/** The files of `lambdas/` (not its adapters) that define a Lambda handler, by name without `.ts`. */
function entryNames(): string[] {
  return (
    readdirSync(LAMBDA_ENTRY_DIRECTORY, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .filter((entry) =>
        /\bdefineStep\(/.test(readFileSync(join(LAMBDA_ENTRY_DIRECTORY, entry.name), 'utf8')),
      )
      .map((entry) => entry.name.slice(0, -'.ts'.length))
      // step.ts defines defineStep itself.
      .filter((name) => name !== 'step')
  );
}

describe('Lambda entries', () => {
  it('are exactly the registered functions: the two workflows’ steps and the others', () => {
    // Act
    const entries = entryNames().sort();

    // Assert
    expect(entries).toEqual([...PROJECT_FUNCTION_NAMES].sort());
  });

  it('register each name once', () => {
    // Act
    const repeated = PROJECT_FUNCTION_NAMES.filter(
      (name, index) => PROJECT_FUNCTION_NAMES.indexOf(name) !== index,
    );

    // Assert
    expect(repeated).toEqual([]);
  });
});
