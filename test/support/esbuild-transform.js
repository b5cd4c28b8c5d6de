// jest's transform of the TypeScript sources (jest.config.js): esbuild strips each file's types on
// its own, as ts-jest did in its transpile mode; tsconfig's `isolatedModules` and
// `verbatimModuleSyntax` make a file's output independent of every other file. Type-checking is
// `npm run typecheck`'s. esbuild is already a dependency (the Lambda bundles) and loads in
// milliseconds, where ts-jest loaded the TypeScript compiler in every jest worker (about 0.3
// CPU-seconds each) and was slower on a cold cache, as a fresh clone has (docs/decisions.md, 31).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { transformSync, version } from 'esbuild';
import { createBarrelImports, readSourceWhenChanged } from './barrel-imports.js';

/**
 * The emit options of tsconfig.json that esbuild reads, as tsc applies them: `verbatimModuleSyntax`
 * keeps every import not marked `type` (side effects included); class fields are defined, as for
 * tsc's ES2022 target. https://esbuild.github.io/content-types/#tsconfig-json
 */
const TSCONFIG_RAW = { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } };

/** Node 20 is the oldest the project runs on locally (package.json `engines`): nothing is lowered for it. */
const TARGET = 'node20';

/** A change of this file, of the rewrite of index imports or of esbuild's version makes every cached output stale. */
const TRANSFORM_VERSION = createHash('sha1')
  .update(readFileSync(fileURLToPath(import.meta.url)))
  .update(readFileSync(fileURLToPath(new URL('./barrel-imports.js', import.meta.url))))
  .update(version)
  .digest('hex');

/**
 * Each import of a room's index becomes imports of the modules that define its names
 * (barrel-imports.js): a suite evaluates only the modules it uses, as with direct imports.
 */
const barrels = createBarrelImports({ readSource: readSourceWhenChanged(), tsconfigRaw: TSCONFIG_RAW });

export default {
  getCacheKey(sourceText, sourcePath, options) {
    return createHash('sha1')
      .update(TRANSFORM_VERSION)
      .update(options.supportsStaticESM ? 'esm' : 'cjs')
      .update(sourcePath)
      .update(sourceText)
      .update(options.supportsStaticESM ? barrels.fingerprint(sourceText, sourcePath) : '')
      .digest('hex');
  },

  process(sourceText, sourcePath, options) {
    const { code, map } = transformSync(sourceText, {
      loader: 'ts',
      // jest runs the suites as ES modules (--experimental-vm-modules, extensionsToTreatAsEsm).
      format: options.supportsStaticESM ? 'esm' : 'cjs',
      target: TARGET,
      tsconfigRaw: TSCONFIG_RAW,
      // Stack traces of failures point at the TypeScript lines.
      sourcemap: 'external',
      sourcefile: sourcePath,
    });
    return { code: options.supportsStaticESM ? barrels.rewrite(code, sourcePath) : code, map };
  },
};
