import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { ASYNC_INFERENCE_STEPS } from '../../handlers/contracts/async-state.js';
import { OPTIMIZATION_STEPS } from '../../handlers/contracts/optimization-state.js';

/**
 * Steps sit side by side: no module of `handlers/` imports a step module, so what two
 * steps share lives in a contract or shared module, and each step can be read, changed and tested
 * alone. A helper that imported a step would chain the steps again through it, so helpers are held
 * to the rule too. Every Lambda has its handler module and its test file, named as it is.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Every `.ts` file under `dir`, as a path relative to the repository root. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

/** The Lambdas: the registry's steps and every entry of `lambdas/` made with `defineStep`. */
function lambdaNames(): string[] {
  const entries = readdirSync(join(ROOT, 'lambdas'))
    .filter((name) => name.endsWith('.ts'))
    .filter((name) => /\bdefineStep\(/.test(readFileSync(join(ROOT, 'lambdas', name), 'utf8')))
    .map((name) => name.replace(/\.ts$/, ''));
  return [
    ...new Set([...Object.values(OPTIMIZATION_STEPS), ...Object.values(ASYNC_INFERENCE_STEPS), ...entries]),
  ].sort();
}

/** `handlers/<name>.ts` or `handlers/async/<name>.ts`: where a Lambda's core function lives. */
function handlerModuleOf(name: string): string | undefined {
  return [`handlers/${name}.ts`, `handlers/async/${name}.ts`].find((path) => existsSync(join(ROOT, path)));
}

/** The modules `source` (at `path`) imports or re-exports by a relative specifier, as `.ts` paths. */
function relativeImports(path: string, source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => join(dirname(path), specifier).replace(/\.js$/, '.ts'));
}

/** "importer imports step module imported", for each import of a step module among `modules`. */
function stepImportViolations(
  modules: ReadonlyMap<string, string>,
  stepModules: ReadonlySet<string>,
): string[] {
  return [...modules].flatMap(([path, source]) =>
    relativeImports(path, source)
      .filter((imported) => stepModules.has(imported) && imported !== path)
      .map((imported) => `${path} imports step module ${imported}`),
  );
}

describe('the import graph of handlers/', () => {
  it('has no module that imports a step module', () => {
    // Arrange
    const stepModules = new Set(lambdaNames().flatMap((name) => handlerModuleOf(name) ?? []));
    const modules = new Map(
      sourcesUnder('handlers').map((path) => [path, readFileSync(join(ROOT, path), 'utf8')]),
    );

    // Act
    const violations = stepImportViolations(modules, stepModules);

    // Assert
    expect(violations).toEqual([]);
  });

  it('names the importer and the imported step module of a step-to-step import', () => {
    // Arrange: recommend importing deploy-candidate, as it once did for the variant name.
    const modules = new Map([
      ['handlers/recommend.ts', "import { VARIANT_NAME } from './deploy-candidate.js';\n"],
      ['handlers/deploy-candidate.ts', "import type { RunPlan } from './contracts/optimization-state.js';\n"],
    ]);
    const stepModules = new Set(['handlers/recommend.ts', 'handlers/deploy-candidate.ts']);

    // Act
    const violations = stepImportViolations(modules, stepModules);

    // Assert
    expect(violations).toEqual(['handlers/recommend.ts imports step module handlers/deploy-candidate.ts']);
  });

  it('finds a step module imported through a re-export or a type-only import', () => {
    // Arrange
    const modules = new Map([
      ['handlers/shared/helper.ts', "export { cleanUpRun } from '../clean-up.js';\n"],
      ['handlers/async/summarize-async-run.ts', "import type { X } from './load-batch.js';\n"],
    ]);
    const stepModules = new Set(['handlers/clean-up.ts', 'handlers/async/load-batch.ts']);

    // Act
    const violations = stepImportViolations(modules, stepModules);

    // Assert
    expect(violations).toEqual([
      'handlers/shared/helper.ts imports step module handlers/clean-up.ts',
      'handlers/async/summarize-async-run.ts imports step module handlers/async/load-batch.ts',
    ]);
  });
});

describe('each Lambda across the layers', () => {
  it('has its entry, its handler module and its test file, all named as the Lambda', () => {
    // Arrange
    const names = lambdaNames();

    // Act
    const missing = names.flatMap((name) => {
      const handler = handlerModuleOf(name);
      const wanted = [
        `lambdas/${name}.ts`,
        ...(handler === undefined
          ? []
          : [handler.replace(/^handlers\//, 'test/handlers/').replace(/\.ts$/, '.test.ts')]),
      ];
      return [
        ...(handler === undefined ? [`handlers/${name}.ts or handlers/async/${name}.ts`] : []),
        ...wanted.filter((path) => !existsSync(join(ROOT, path))),
      ];
    });

    // Assert
    expect(missing).toEqual([]);
  });
});
