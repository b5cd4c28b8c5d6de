/**
 * The app as `cdk synth` builds it, synthesized with every check `cdk synth` runs (cdk-nag's
 * AwsSolutions rules, CloudFormation Guard, aws-cdk-lib's built-in CloudFormation validation), once
 * per source change for all the suites that judge those checks. Each configuration costs a whole-
 * stack synth and the start of two WebAssembly validators; in one process, and cached, they are paid
 * once instead of once per suite.
 *
 * The file is `node_modules/.cache/mso-checked-apps/apps-<hash>.json`, the hash taken over every
 * source the synthesized workflows' cache covers (`local/synthesis/synthesis-cache.ts`) and the files below,
 * so a stale verdict is never read. jest's global set-up fills it before the workers start
 * (`test/support/global-setup.js`); a suite run without it fills it here. This module never loads
 * aws-cdk-lib: the writer (`write-checked-apps.ts`) does, in a child process.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT, sourcesHash } from '../../local/synthesis/synthesis-cache.js';

/** The configurations `cdk synth` builds that the suites check, and what each one is. */
export const CHECKED_APPS = {
  /** The default stack in the tests' explicit account and Region (TEST_ENV). */
  default: 'the default stack in an explicit environment',
  /** The default stack as `cdk synth` builds it without credentials: no account, no Region. */
  environmentAgnostic: 'the default stack without an account or Region',
  /** The stack of `optimizer.config.example.json`: schedules, e-mail, registry trigger, throttling. */
  configExample: 'the stack of optimizer.config.example.json',
} as const;

export type CheckedAppName = keyof typeof CHECKED_APPS;

/** What one configuration's synth gave: its stack, or the error `app.synth()` threw. */
export type CheckedAppResult =
  | {
      readonly stackName: string;
      readonly environment: { readonly account: string; readonly region: string };
      readonly template: Readonly<Record<string, unknown>>;
    }
  | { readonly error: string };

export type CheckedApps = Readonly<Record<CheckedAppName, CheckedAppResult>>;

/**
 * What a configuration's failed synth records: its error, the verdict the suites judge (a cdk-nag
 * or Guard finding, an invalid template). An error of the machine instead (a Node system error such
 * as ENOENT when the run's temporary folder was removed under a synth, ENOSPC, EMFILE) says nothing
 * about the sources, so it is thrown: the writer exits without writing, and the next run
 * synthesizes again instead of reading that error from the cache until the sources change.
 */
export function failedSynthResult(error: unknown): CheckedAppResult {
  if (error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string') throw error;
  return { error: error instanceof Error ? error.message : String(error) };
}

/** The environment variable jest's global set-up sets to this run's cache file. */
export const CHECKED_APPS_ENV = 'MSO_TEST_CHECKED_APPS';

const HERE = dirname(fileURLToPath(import.meta.url));
const WRITER = join(HERE, 'write-checked-apps.ts');
export const CHECKED_APPS_CACHE_DIR = join(REPO_ROOT, 'node_modules', '.cache', 'mso-checked-apps');

/** Files beside the app's sources that shape these syntheses: the config, its inputs, this code. */
function extraSources(): string[] {
  const examples = join(REPO_ROOT, 'examples');
  return [
    join(REPO_ROOT, 'optimizer.config.example.json'),
    ...readdirSync(examples)
      .filter((name) => name.endsWith('.json'))
      .map((name) => join(examples, name)),
    join(HERE, 'checked-apps.ts'),
    WRITER,
    join(REPO_ROOT, 'test', 'infra', 'app.ts'),
  ].sort();
}

/** The cache file for the sources as they are now. */
export function checkedAppsPath(): string {
  const hash = createHash('sha256').update(sourcesHash()).update('\0');
  for (const file of extraSources()) hash.update(file).update('\0').update(readFileSync(file)).update('\0');
  return join(CHECKED_APPS_CACHE_DIR, `apps-${hash.digest('hex').slice(0, 16)}.json`);
}

/** Synthesizes every configuration into `path` in a child process; throws when it cannot. */
function writeCheckedApps(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const child = spawnSync(process.execPath, ['--import', 'tsx', WRITER, path], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (child.status !== 0) {
    throw new Error(
      `${WRITER} exited ${child.status ?? child.signal}; expected exit 0. Its error is printed above; ` +
        '`npm run synth` shows the same error',
    );
  }
  for (const name of readdirSync(dirname(path))) {
    const other = join(dirname(path), name);
    if (other !== path && !name.endsWith('.partial')) rmSync(other, { force: true });
  }
}

/** Makes sure the cache holds this sources' syntheses; its path. */
export function ensureCheckedApps(): string {
  const path = checkedAppsPath();
  if (!existsSync(path)) writeCheckedApps(path);
  return path;
}

/**
 * One configuration's synth with every check: its stack name, environment and template. Throws the
 * error its `app.synth()` threw (a cdk-nag or Guard finding without acknowledgment, an invalid
 * template), as a suite that synthesized it itself would.
 */
export function checkedApp(name: CheckedAppName): Extract<CheckedAppResult, { stackName: string }> {
  const fromSetUp = process.env[CHECKED_APPS_ENV];
  const path = fromSetUp === undefined || fromSetUp === '' ? ensureCheckedApps() : fromSetUp;
  const apps = JSON.parse(readFileSync(path, 'utf8')) as CheckedApps;
  const result = apps[name];
  if ('error' in result) throw new Error(`Synthesizing ${CHECKED_APPS[name]} failed: ${result.error}`);
  return result;
}
