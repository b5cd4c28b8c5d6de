/**
 * The synthesized workflows, cached on disk once per change of the sources that shape them: the
 * local CLIs (`npm start`, `npm run start:async`) and the test suites read one synthesis instead of
 * loading aws-cdk-lib and synthesizing the stack on every run, about 1 s of module loading and
 * 3 s of CPU each time.
 *
 * The file is `.cache/synth/workflows-<hash>.json`, the hash taken over the paths and contents of
 * every file that can change the template (SOURCE_DIRECTORIES, SOURCE_FILES): an edit, an added or
 * a removed file, or another CDK version gives another name, so a stale synthesis is never read.
 * A miss synthesizes in a child process (`write-synthesized-workflows.ts`), which writes beside the
 * target and renames into place: two runs starting at once each write a whole file, and a reader
 * never sees a half-written one. This module itself never loads aws-cdk-lib.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rememberValidatedDefinition } from '../runner/index.js';
import type { SynthesizedWorkflows } from './synthesized-workflows.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Where the syntheses live (git-ignored); `rm -rf .cache/synth` clears them. */
export const SYNTHESIS_CACHE_DIR = join(REPO_ROOT, '.cache', 'synth');

/** The folders whose every file can change the synthesized template. */
export const SOURCE_DIRECTORIES = ['infra', 'workflows', 'core', 'lambdas', 'local'] as const;

/** The app's config, the dependency versions and the CDK actually installed. */
export const SOURCE_FILES = [
  'cdk.json',
  'package-lock.json',
  'tsconfig.json',
  'node_modules/aws-cdk-lib/package.json',
] as const;

const WRITER = join(REPO_ROOT, 'local', 'synthesis', 'write-synthesized-workflows.ts');

/** A partial file younger than this may be another run's synthesis still being written. */
const PARTIAL_GRACE_MS = 600_000;

function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/**
 * A hash of the relative paths and contents of every source file under `root`: another value for
 * any edit, added or removed file. About 20 ms for the ~270 files.
 */
export function sourcesHash(root: string = REPO_ROOT): string {
  const files = [
    ...SOURCE_DIRECTORIES.flatMap((directory) => filesUnder(join(root, directory))),
    ...SOURCE_FILES.map((file) => join(root, file)).filter((file) => existsSync(file)),
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** The cache file of the sources under `root` as they are now. */
export function synthesisPath(root: string = REPO_ROOT, cacheDir: string = SYNTHESIS_CACHE_DIR): string {
  return join(cacheDir, `workflows-${sourcesHash(root)}.json`);
}

/** Synthesizes into `path` in a child process (aws-cdk-lib stays out of this one); throws on failure. */
export function writeSynthesis(path: string): void {
  const child = spawnSync(process.execPath, ['--import', 'tsx', WRITER, path], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (child.status !== 0) {
    throw new Error(
      `Synthesizing the workflows failed (${WRITER} exited ${child.status ?? child.signal}); expected exit 0. ` +
        'Its error is printed above; `npm run synth` shows the same error',
    );
  }
}

/** Removes the syntheses of earlier sources from `cacheDir`, keeping `keep` and partial files being written. */
export function removeStaleSyntheses(cacheDir: string, keep: string): void {
  for (const name of readdirSync(cacheDir)) {
    const path = join(cacheDir, name);
    const writing = name.endsWith('.partial') && Date.now() - statSync(path).mtimeMs < PARTIAL_GRACE_MS;
    if (name !== keep && !writing) rmSync(path, { force: true });
  }
}

/** Makes sure `path` holds a synthesis (writing one on a miss); whether it had to write it. */
export function ensureSynthesis(path: string, write: (path: string) => void = writeSynthesis): boolean {
  if (existsSync(path)) return false;
  mkdirSync(dirname(path), { recursive: true });
  write(path);
  removeStaleSyntheses(dirname(path), relative(dirname(path), path));
  return true;
}

export interface CachedSynthesisOptions {
  /** The cache file to read; the sources' current one by default. */
  readonly path?: string;
  /** Called before synthesizing on a miss (e.g. a progress line); not called on a hit. */
  readonly onMiss?: () => void;
  /** Writes a synthesis into a path: `writeSynthesis` by default. */
  readonly write?: (path: string) => void;
}

/**
 * The workflows as `synthesizeWorkflows()` returns them, from the cache (synthesized first on a
 * miss). Each call parses a fresh copy, so a caller that changes what it gets changes nothing for
 * another.
 */
export function cachedSynthesizedWorkflows(options: CachedSynthesisOptions = {}): {
  readonly workflows: SynthesizedWorkflows;
  readonly path: string;
  readonly cached: boolean;
} {
  const path = options.path ?? synthesisPath();
  const write = options.write ?? writeSynthesis;
  let cached = existsSync(path);
  if (!cached) {
    options.onMiss?.();
    ensureSynthesis(path, write);
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    // Another run of other sources removed it as stale between the check and the read: rewrite.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    if (cached) options.onMiss?.();
    cached = false;
    ensureSynthesis(path, write);
    text = readFileSync(path, 'utf8');
  }
  const workflows = JSON.parse(text) as SynthesizedWorkflows;
  // The writer validated these definitions before writing the file: the engine need not again.
  for (const machine of [workflows.optimization, workflows.asyncInference, workflows.failedRunCleanUp]) {
    rememberValidatedDefinition(machine.definition);
  }
  return { workflows, path, cached };
}
