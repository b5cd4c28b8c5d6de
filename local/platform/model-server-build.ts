/**
 * The model server compiled to JavaScript once per change of its sources, for the servers the local
 * model host starts. From TypeScript, every server process and each of its worker threads would
 * first load and register the tsx loader: about two thirds of a server's start-up CPU. The image
 * (local/model-server/Dockerfile) runs the same sources through tsx; both strip the types with
 * esbuild, so the code that runs is the same.
 *
 * The build is `node_modules/.cache/mso-model-server/<hash>/`, the hash taken over the paths and
 * contents of the folders the server's modules may come from (SOURCE_DIRECTORIES), the Node and the
 * esbuild versions: an edit, an added or a removed file gives another folder, so a stale build is
 * never run. It holds the modules the entries import (found by esbuild), each transpiled on its own
 * at its path under the repository, so `worker-pool.ts` finds its worker modules beside it as in
 * the sources, and packages resolve from the repository's node_modules. A miss builds into a
 * folder of its own and renames it into place: builds starting at once each make a whole folder,
 * and no server starts from a half-written one. Under node_modules, as jest's cache is, so the
 * linters and the type-checker never see it.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** This file's folder (`import.meta.dirname` is missing under jest 29). */
const HERE = dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = resolve(HERE, '..', '..');

/** Where the builds live; `rm -rf node_modules/.cache/mso-model-server` clears them. */
export const MODEL_SERVER_BUILD_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'mso-model-server');

const SERVER_MAIN = 'local/model-server/main.ts';
const EXIT_WITH_PARENT = 'local/platform/exit-with-parent.ts';

/**
 * The modules a server process runs: its entry, the preload that ends it with its parent, and the
 * worker threads it starts (`spawnWorkerModule` in local/model-server/worker-pool.ts).
 */
export const MODEL_SERVER_ENTRIES = [
  SERVER_MAIN,
  EXIT_WITH_PARENT,
  'local/model-server/inference-worker.ts',
  'local/model-server/generative/step-worker.ts',
] as const;

/** The folders every module the entries import must sit in: the hash covers their files. */
export const SOURCE_DIRECTORIES = [
  'local/model-server',
  'local/platform',
  'local/example-model',
  'core/contracts',
] as const;

/** esbuild's CommonJS API (its package has no ESM entry); loaded on a miss only. */
interface Esbuild {
  buildSync(options: Record<string, unknown>): {
    readonly metafile?: { readonly inputs: Record<string, unknown> };
  };
}

function esbuildVersion(): string {
  const require = createRequire(import.meta.url);
  const packageJson = JSON.parse(readFileSync(require.resolve('esbuild/package.json'), 'utf8')) as {
    version: string;
  };
  return packageJson.version;
}

function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** A hash of the source folders' files (paths and contents), the Node and the esbuild versions. */
export function modelServerSourcesHash(root: string = REPO_ROOT): string {
  const files = SOURCE_DIRECTORIES.flatMap((directory) => filesUnder(join(root, directory))).sort();
  const hash = createHash('sha256').update(`${process.version}\0${esbuildVersion()}\0`);
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** Builds the model server into `target` (see the module comment); throws naming a module outside the sources. */
export function buildModelServer(target: string, root: string = REPO_ROOT): void {
  const esbuild = createRequire(import.meta.url)('esbuild') as Esbuild;
  const entryPoints = MODEL_SERVER_ENTRIES.map((entry) => join(root, entry));
  // A bundle that is not written: only its list of inputs, the modules the entries import.
  const { metafile } = esbuild.buildSync({
    absWorkingDir: root,
    entryPoints,
    outdir: target,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const modules = Object.keys(metafile?.inputs ?? {});
  const outside = modules.filter(
    (module) => !SOURCE_DIRECTORIES.some((directory) => module.startsWith(`${directory}/`)),
  );
  if (outside.length > 0) {
    throw new Error(
      `The model server imports ${outside.join(', ')}, outside the folders its build is keyed on ` +
        `(${SOURCE_DIRECTORIES.join(', ')}): expected its modules there; add the folder to SOURCE_DIRECTORIES ` +
        'in local/platform/model-server-build.ts',
    );
  }
  const partial = `${target}.partial-${process.pid}-${Date.now()}`;
  try {
    esbuild.buildSync({
      absWorkingDir: root,
      entryPoints: modules.map((module) => join(root, module)),
      outbase: root,
      outdir: partial,
      bundle: false,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node}`,
      // Stack traces name the TypeScript sources' lines, as under tsx (`--enable-source-maps`).
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    // Under node_modules, Node looks no further up for the package's module type.
    writeFileSync(join(partial, 'package.json'), '{"type":"module"}\n');
    mkdirSync(dirname(target), { recursive: true });
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    // Another run renamed its whole build into place first: use it.
    if (existsSync(join(target, 'package.json'))) return;
    throw error;
  }
}

/** A build of the model server: its folder, and the two modules a server process is started with. */
export interface ModelServerBuild {
  readonly dir: string;
  /** `local/model-server/main.ts`, built: the server's entry. */
  readonly main: string;
  /** `local/platform/exit-with-parent.ts`, built: preloaded (`--import`, a file URL). */
  readonly exitWithParentUrl: string;
}

let sourcesHash: string | undefined;

/**
 * The model server's build for the sources as they are, built on a miss. The hash is taken once
 * per process: a process starts servers of the sources it started with.
 */
export function modelServerBuild(cacheDir: string = MODEL_SERVER_BUILD_DIR): ModelServerBuild {
  sourcesHash ??= modelServerSourcesHash();
  const dir = join(cacheDir, sourcesHash);
  if (!existsSync(join(dir, 'package.json'))) buildModelServer(dir);
  return {
    dir,
    main: builtModule(dir, SERVER_MAIN),
    exitWithParentUrl: pathToFileURL(builtModule(dir, EXIT_WITH_PARENT)).href,
  };
}

/** The path of a source module (`local/model-server/main.ts`) in the build folder `dir`. */
function builtModule(dir: string, sourceModule: string): string {
  return join(dir, sourceModule.replace(/\.ts$/, '.js'));
}
