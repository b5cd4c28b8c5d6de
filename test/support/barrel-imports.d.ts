// Types of barrel-imports.js, a module of jest's transform (plain JavaScript: jest loads it as is).

/** Reads a module's source by absolute path; undefined when there is no such file. */
export type ReadSource = (path: string) => string | undefined;

export interface BarrelImports {
  /** A digest of every module the rewrite of `sourceText` may consult, for jest's cache key. */
  fingerprint(sourceText: string, sourcePath: string): string;
  /** `code` (esbuild's ESM output for `sourcePath`) with its leading imports of indexes rewritten. */
  rewrite(code: string, sourcePath: string): string;
}

export function createBarrelImports(options: { readSource: ReadSource; tsconfigRaw: object }): BarrelImports;

export function readSourceWhenChanged(): ReadSource;
