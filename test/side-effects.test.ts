/**
 * package.json lists the only modules of the project with import-time side effects anyone relies
 * on (`"sideEffects"`), so esbuild leaves out of a Lambda bundle every other module of a room's
 * index whose exports the entry does not use. That holds only while each module imported for its
 * side effects alone is on that list: esbuild drops any other such import from the bundle
 * (https://esbuild.github.io/api/#tree-shaking).
 */
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { REPO_ROOT, SOURCE_FOLDERS, sourcesUnder } from './support/module-graph.js';

interface SideEffectImport {
  readonly from: string;
  /** Repository-relative `.ts` path of the module imported for its side effects. */
  readonly module: string;
}

/** The modules `source` (at repository path `path`) imports for their side effects alone. */
function sideEffectImportsOf(path: string, source: string): SideEffectImport[] {
  const file = ts.createSourceFile(path, source, ts.ScriptTarget.Latest);
  return file.statements.flatMap((statement) =>
    ts.isImportDeclaration(statement) &&
    statement.importClause === undefined &&
    ts.isStringLiteral(statement.moduleSpecifier) &&
    statement.moduleSpecifier.text.startsWith('.')
      ? [{ from: path, module: join(dirname(path), statement.moduleSpecifier.text).replace(/\.js$/, '.ts') }]
      : [],
  );
}

describe('modules with import-time side effects', () => {
  it('are listed in package.json when a module imports them for their side effects alone', () => {
    // Prepare
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      sideEffects?: unknown;
    };
    const listed: unknown[] = Array.isArray(manifest.sideEffects) ? manifest.sideEffects : [];

    // Act
    const unlisted = SOURCE_FOLDERS.flatMap((folder) => sourcesUnder(folder))
      .flatMap((path) => sideEffectImportsOf(path, readFileSync(join(REPO_ROOT, path), 'utf8')))
      .filter(({ module }) => !listed.includes(`./${module}`));

    // Assert
    expect(Array.isArray(manifest.sideEffects)).toBe(true);
    expect(unlisted).toEqual([]);
  });

  it('are found where a module is imported for its side effects alone', () => {
    // Act
    const found = sideEffectImportsOf(
      'lambdas/x.ts',
      "import './polyfill.js';\nimport { a } from './a.js';\n",
    );

    // Assert
    expect(found).toEqual([{ from: 'lambdas/x.ts', module: 'lambdas/polyfill.ts' }]);
  });
});
