/**
 * The local folders' import graph: the optimization workflow's adapters (`local/adapters`) and the
 * async workflow's (`local/async`) both build on the local platform (`local/platform`), never on
 * each other, and the platform builds on neither (adapters → platform ← async).
 */
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every `.ts` file below `folder` (repository-relative), sorted. */
function sourceFiles(folder: string): string[] {
  return readdirSync(join(REPO_ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(REPO_ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The imports of `file` (static, `export … from`, dynamic and type-only) that land below one of
 * `forbidden`, as `file imports 'specifier'` lines.
 */
function forbiddenImports(file: string, text: string, forbidden: readonly string[]): string[] {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith('.'))
    .filter(({ fileName }) => {
      const target = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(file), fileName));
      return forbidden.some((folder) => target === folder || target.startsWith(`${folder}/`));
    })
    .map(({ fileName }) => `${file} imports '${fileName}'`);
}

function forbiddenImportsBelow(folder: string, forbidden: readonly string[]): string[] {
  return sourceFiles(folder).flatMap((file) =>
    forbiddenImports(file, readFileSync(join(REPO_ROOT, file), 'utf8'), forbidden),
  );
}

describe('local import graph', () => {
  it('names an import of local/async from local/adapters, whatever its form', () => {
    // Prepare
    const text = [
      "import { LocalAsyncInvoker } from '../async/local-async-invoker.js';",
      "import type { LocalTaskResumer } from '../async/local-task-resumer.js';",
      "export { MemoryTaskTokenStore } from '../async/memory-task-token-store.js';",
      "const late = await import('../async/environment.js');",
      "import { FileObjectStore } from '../platform/file-object-store.js';",
    ].join('\n');

    // Act
    const found = forbiddenImports('local/adapters/example.ts', text, ['local/async']);

    // Assert
    expect(found).toEqual([
      "local/adapters/example.ts imports '../async/local-async-invoker.js'",
      "local/adapters/example.ts imports '../async/local-task-resumer.js'",
      "local/adapters/example.ts imports '../async/memory-task-token-store.js'",
      "local/adapters/example.ts imports '../async/environment.js'",
    ]);
  });

  it('refuses an import of local/async from local/adapters', () => {
    // Act
    const found = forbiddenImportsBelow('local/adapters', ['local/async']);

    // Assert
    expect(found).toEqual([]);
  });

  it('refuses an import of local/adapters from local/async', () => {
    // Act
    const found = forbiddenImportsBelow('local/async', ['local/adapters']);

    // Assert
    expect(found).toEqual([]);
  });

  it('refuses an import of local/adapters or local/async from local/platform', () => {
    // Act
    const found = forbiddenImportsBelow('local/platform', ['local/adapters', 'local/async']);

    // Assert
    expect(found).toEqual([]);
  });
});
