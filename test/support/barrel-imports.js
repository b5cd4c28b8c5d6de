// jest's transform (test/support/esbuild-transform.js) turns each named import of a room's index
// (`import { a, b } from '../room/index.js'`) into imports of the modules that define the names, as
// babel-plugin-transform-barrels and Next's `optimizePackageImports` do for bundlers. jest
// evaluates every module of a suite in the suite's own registry: through an index, a suite that uses
// one name of a room would evaluate every module the index names. Only jest rewrites: the Lambda
// bundles leave unused modules out already (package.json `sideEffects`), and the sources keep
// naming the index.
//
// The rewrite is exact or absent. An import is rewritten only when every name it imports is found
// in a module other than an index; anything else (a namespace or default import, a name the index
// declares itself, a name two `export *` offer) keeps naming the index, so the result is never
// wrong, only unoptimized. `import type` needs nothing: esbuild has removed it already. An import
// of no value names (`import { type A } from`, printed `import {} from`) stays too: it evaluates the
// index's modules, which is what that source asks for.
//
// Modules are read as esbuild prints them (https://esbuild.github.io/api/#metafile): with
// `bundle: false`, the metafile lists a module's exports, every `export { … } from` is printed as an
// import and one `export { … };` at the end, and an `export *` as itself. The modules without side
// effects make the order safe to change: each rewritten module is still evaluated before the
// importer, and modules of the index the importer does not use, which have no effect anyone relies
// on (package.json `sideEffects`), are not evaluated at all.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, relative, resolve, sep } from 'node:path';
import { buildSync } from 'esbuild';

const isIndex = (path) => basename(path) === 'index.ts';

/** What `locate` answers besides a module: the name is not there, or cannot be told exactly. */
const NOT_EXPORTED = 'not exported';
const UNKNOWN = 'unknown';

/** The TypeScript source a relative `.js` specifier names (NodeNext), or undefined for any other. */
function sourceOf(fromPath, specifier) {
  if (!/^\.\.?\//.test(specifier) || !specifier.endsWith('.js')) return undefined;
  return resolve(dirname(fromPath), specifier).replace(/\.js$/, '.ts');
}

/** The specifier that names `toPath` (a `.ts` source) from `fromPath`, as the sources write it. */
function specifierOf(fromPath, toPath) {
  const path = relative(dirname(fromPath), toPath).split(sep).join('/').replace(/\.ts$/, '.js');
  return path.startsWith('../') ? path : `./${path}`;
}

/** `a`, `a as b` in an import or export clause: [name in the module, name here]; undefined for a string name. */
function clauseNames(clause) {
  const names = [];
  for (const part of clause.split(',')) {
    const text = part.trim();
    if (text === '') continue;
    const match = /^([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(text);
    if (!match) return undefined;
    names.push([match[1], match[2] ?? match[1]]);
  }
  return names;
}

/** One import or `export * from` statement as esbuild prints it, from `lastIndex` on (sticky). */
const LEADING_STATEMENT =
  /\s*(?:import (?:[^"'`;]*? from )?"[^"]*"(?: with \{[^}]*\})?;|export \* from "[^"]*";)/y;
const NAMED_IMPORT = /^\s*import \{([^}]*)\} from "([^"]*)";$/;
const STAR_EXPORT = /^\s*export \* from "([^"]*)";$/;

/** The import and `export *` statements a printed module starts with: [start, end, text]. */
function leadingStatements(code) {
  const statements = [];
  LEADING_STATEMENT.lastIndex = 0;
  for (let match; (match = LEADING_STATEMENT.exec(code)) !== null;) {
    statements.push({ start: match.index, end: LEADING_STATEMENT.lastIndex, text: match[0] });
  }
  return statements;
}

/**
 * What a module exports, as the rewrite needs it:
 * - `own`: each name it exports, mapped to [module, name there] when it is a re-export
 *   (`export { a as b } from './x.js'`), or to undefined when the module declares it;
 * - `stars`: the modules of its `export * from` statements.
 * Undefined when a relative re-export cannot be followed.
 */
function analyse(path, text, tsconfigRaw) {
  const { metafile, outputFiles } = buildSync({
    stdin: { contents: text, loader: 'ts', sourcefile: path },
    bundle: false,
    write: false,
    metafile: true,
    format: 'esm',
    tsconfigRaw,
    logLevel: 'silent',
  });
  const output = Object.values(metafile.outputs)[0];
  const code = outputFiles[0]?.text ?? '';
  const imported = new Map();
  const stars = [];
  for (const { text: statement } of leadingStatements(code)) {
    const named = NAMED_IMPORT.exec(statement);
    const names = named && clauseNames(named[1]);
    const from = named && sourceOf(path, named[2]);
    if (names && from) for (const [name, local] of names) imported.set(local, [from, name]);
    const star = STAR_EXPORT.exec(statement);
    if (star) {
      const target = sourceOf(path, star[1]);
      if (!target) return undefined;
      stars.push(target);
    }
  }
  // An `export *` after other code is not among the leading statements: give up on such a module.
  const starCount = code.match(/^export \* from /gm)?.length ?? 0;
  if (starCount !== stars.length) return undefined;
  const exported = /(?:^|\n)export \{([^}]*)\};\s*$/.exec(code);
  const locals = new Map((exported && clauseNames(exported[1])) ?? []);
  const own = new Map();
  for (const name of output?.exports ?? []) {
    const local = [...locals].find(([, as]) => as === name)?.[0];
    own.set(name, local === undefined ? undefined : imported.get(local));
  }
  return { own, stars };
}

/**
 * A module's source, read again only when its size or modification time changed: jest asks for a
 * cache key once per file and worker, and each asks for the indexes the file imports.
 */
export function readSourceWhenChanged() {
  const known = new Map();
  return (path) => {
    let stats;
    try {
      stats = statSync(path);
    } catch {
      return undefined;
    }
    const entry = known.get(path);
    if (entry && entry.mtimeMs === stats.mtimeMs && entry.size === stats.size) return entry.text;
    const text = readFileSync(path, 'utf8');
    known.set(path, { mtimeMs: stats.mtimeMs, size: stats.size, text });
    return text;
  };
}

/**
 * The rewrite over a tree of sources, read by `readSource(path)` (undefined when there is no such
 * file), each module analysed with esbuild once per content.
 */
export function createBarrelImports({ readSource, tsconfigRaw }) {
  const analyses = new Map();

  function analysisOf(path) {
    const text = readSource(path);
    if (text === undefined) return undefined;
    const known = analyses.get(path);
    if (known?.text === text) return known.analysis;
    const analysis = analyse(path, text, tsconfigRaw);
    analyses.set(path, { text, analysis });
    return analysis;
  }

  /**
   * Where `name` exported by `path` is defined: [module, name there]. Through an index, the
   * module it re-exports the name from (through the next index too); elsewhere, the module
   * itself, if it exports the name. NOT_EXPORTED when `path` does not export it, UNKNOWN when that
   * cannot be told exactly.
   */
  function locate(path, name, visiting = new Set()) {
    // A module reached again through `export *` offers nothing more (ECMAScript's ResolveExport).
    if (visiting.has(path)) return NOT_EXPORTED;
    const analysis = analysisOf(path);
    if (!analysis) return UNKNOWN;
    const seen = new Set(visiting).add(path);
    if (analysis.own.has(name)) {
      const origin = analysis.own.get(name);
      if (!isIndex(path) || origin === undefined) return [path, name];
      return isIndex(origin[0]) ? locate(origin[0], origin[1], seen) : origin;
    }
    // `export *` never offers `default`, and a name two of them offer is ambiguous (ResolveExport):
    // left to the index, which fails or succeeds as it always did.
    if (name === 'default') return NOT_EXPORTED;
    const found = analysis.stars
      .map((star) => locate(star, name, seen))
      .filter((hit) => hit !== NOT_EXPORTED);
    if (found.length === 0) return NOT_EXPORTED;
    if (found.length > 1 || found[0] === UNKNOWN) return UNKNOWN;
    return isIndex(path) ? found[0] : [path, name];
  }

  /** The modules an index's map is read from: itself, what it re-exports as a whole, the next indexes. */
  function consulted(path, files = new Map()) {
    if (files.has(path)) return files;
    files.set(path, readSource(path) ?? '');
    const analysis = analysisOf(path);
    for (const star of analysis?.stars ?? []) consulted(star, files);
    if (isIndex(path))
      for (const origin of analysis?.own.values() ?? [])
        if (origin && isIndex(origin[0])) consulted(origin[0], files);
    return files;
  }

  return {
    /**
     * A digest of every module the rewrite of `sourceText` may consult, for jest's cache key: a
     * changed index, or a module it re-exports as a whole, makes the file's cached output stale.
     * Any specifier that looks like an index counts (in a comment too): a spare entry costs nothing.
     */
    fingerprint(sourceText, sourcePath) {
      const hash = createHash('sha1');
      const indexes = new Set();
      for (const [, specifier] of sourceText.matchAll(/['"](\.\.?\/(?:[^'"\n]*\/)?index\.js)['"]/g)) {
        const path = sourceOf(sourcePath, specifier);
        if (path) indexes.add(path);
      }
      for (const index of [...indexes].sort())
        for (const [path, text] of consulted(index)) hash.update(`${path}\0${text}\0`);
      return hash.digest('hex');
    },

    /** `code` (esbuild's ESM output for `sourcePath`) with its leading imports of indexes rewritten. */
    rewrite(code, sourcePath) {
      let result = '';
      let copied = 0;
      for (const { start, end, text } of leadingStatements(code)) {
        const replacement = directImports(text, sourcePath);
        if (replacement === undefined) continue;
        // As many line breaks as before: the source map's lines stay where they were.
        const breaks = '\n'.repeat(text.trimStart().split('\n').length - 1);
        result +=
          code.slice(copied, start) +
          text.slice(0, text.length - text.trimStart().length) +
          replacement +
          breaks;
        copied = end;
      }
      return result + code.slice(copied);
    },
  };

  /** The imports that replace one named import of an index, or undefined to keep it. */
  function directImports(statement, sourcePath) {
    const named = NAMED_IMPORT.exec(statement);
    if (!named || basename(named[2]) !== 'index.js') return undefined;
    const index = sourceOf(sourcePath, named[2]);
    const names = clauseNames(named[1]);
    if (!index || !names || names.length === 0) return undefined;
    const byModule = new Map();
    for (const [name, local] of names) {
      const origin = locate(index, name);
      if (!Array.isArray(origin) || isIndex(origin[0])) return undefined;
      const [module, exported] = origin;
      const clause = byModule.get(module) ?? [];
      byModule.set(module, clause);
      clause.push(exported === local ? local : `${exported} as ${local}`);
    }
    return [...byModule]
      .map(([module, clause]) => `import { ${clause.join(', ')} } from "${specifierOf(sourcePath, module)}";`)
      .join(' ');
  }
}
