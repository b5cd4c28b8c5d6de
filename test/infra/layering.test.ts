import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { REPO_ROOT } from '../../infra/paths.js';

const CONSTRUCTS = join(REPO_ROOT, 'infra', 'constructs');
const STACKS = join(REPO_ROOT, 'infra', 'stacks');

/** Every TypeScript file under `directory`, recursively. */
function typeScriptFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return typeScriptFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The relative modules a file imports or re-exports (static, dynamic and type-only alike). */
function relativeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const specifiers = [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'([^']+)'/g)].map(
    (match) => match[1] ?? '',
  );
  return specifiers.filter((specifier) => specifier.startsWith('.'));
}

describe('infra/ layering', () => {
  it('refuses an import of infra/stacks/ from infra/constructs/ (constructs get a StepLambdaFactory)', () => {
    // Prepare
    const files = typeScriptFiles(CONSTRUCTS);

    // Act
    const upward = files.flatMap((file) =>
      relativeImports(file)
        .filter((specifier) => resolve(dirname(file), specifier).startsWith(`${STACKS}/`))
        .map((specifier) => `${relative(REPO_ROOT, file)} imports ${specifier}`),
    );

    // Assert
    expect(upward).toEqual([]);
  });

  it('finds the constructs it checks, the step Lambda factory among them', () => {
    // Act
    const files = typeScriptFiles(CONSTRUCTS).map((file) => relative(CONSTRUCTS, file));

    // Assert
    expect(files).toEqual(expect.arrayContaining(['optimization-steps.ts', 'step-lambda-factory.ts']));
  });
});
