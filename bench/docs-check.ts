/**
 * `npm run check:docs`: runs every command of the README's and docs' shell blocks that is not
 * marked AWS only, as a reader would, in a fresh copy of the repository (its tracked and untracked,
 * not ignored files; no node_modules, no runs, no caches): in page order, each command line once,
 * `npm ci` among them. Prints PASS or FAIL with the exit code and time of each, the end of a failed
 * command's output, and exits 1 when one failed. Takes many minutes (it runs `npm start`, `npm test`
 * …), so it is not part of `npm test`, which checks the same commands' scripts, options and files
 * in seconds (test/docs-commands.test.ts).
 *
 *   npm run check:docs -- [--skip TEXT]… [--keep]
 *
 * --skip TEXT leaves out the commands whose line contains TEXT (e.g. --skip "npm test" on a shared
 * machine), reported as SKIP; --keep keeps the copy (its path is printed). The output of each
 * command is in bench/out/docs-check/.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  copyFileSync,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { type DocCommand, docCommands, DOCS_CHECK_OPTIONS } from './support/doc-commands.js';

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const LOGS = join(REPO_ROOT, 'bench', 'out', 'docs-check');
/** The longest a command may take: `npm test` on two cores. */
const TIMEOUT_MS = 45 * 60_000;
const TAIL_LINES = 8;

const { values } = parseArgs({ options: DOCS_CHECK_OPTIONS, strict: true });

/** The commands to run: not AWS only, each command line (with its block's variables) once. */
function runnableCommands(): DocCommand[] {
  const seen = new Set<string>();
  return docCommands(REPO_ROOT).filter((command) => {
    const key = `${command.text}\n${JSON.stringify(command.env)}`;
    if (command.awsOnly || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** A reader's fresh clone: the files git would commit now, without anything git ignores. */
function freshCopy(): string {
  const copy = mkdtempSync(join(tmpdir(), 'mso-docs-check-'));
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter((file) => file !== '');
  for (const file of new Set(files)) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      copyFileSync(join(REPO_ROOT, file), join(copy, file));
    } catch (error) {
      // A file deleted in the work tree but still in the index is not in a clone of it either.
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
    }
  }
  return copy;
}

interface Result {
  readonly command: DocCommand;
  readonly status: 'PASS' | 'FAIL' | 'SKIP';
  readonly exitCode?: number | string;
  readonly seconds?: number;
  readonly log?: string;
}

async function run(command: DocCommand, cwd: string, index: number): Promise<Result> {
  const log = join(
    LOGS,
    `${String(index).padStart(2, '0')}-${command.file.replace(/[/.]/g, '_')}-${command.line}.log`,
  );
  const output = createWriteStream(log);
  const began = Date.now();
  // Its own process group, so a timeout or Ctrl-C ends the command's children too.
  const child = spawn('bash', ['-c', command.text], {
    cwd,
    env: { ...process.env, ...command.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.pipe(output, { end: false });
  child.stderr.pipe(output, { end: false });
  const stop = (): void => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
  };
  const timer = setTimeout(stop, TIMEOUT_MS);
  process.once('SIGINT', stop);
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  clearTimeout(timer);
  process.off('SIGINT', stop);
  output.end();
  await once(output, 'close');
  const exitCode = code ?? signal ?? 'unknown';
  return {
    command,
    status: exitCode === 0 ? 'PASS' : 'FAIL',
    exitCode,
    seconds: (Date.now() - began) / 1000,
    log,
  };
}

function tail(log: string): string {
  const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
  return lines
    .slice(-TAIL_LINES)
    .map((line) => `      | ${line}`)
    .join('\n');
}

mkdirSync(LOGS, { recursive: true });
const commands = runnableCommands();
const copy = freshCopy();
console.log(`${commands.length} command(s) of the docs, run in a fresh copy at ${copy}`);
/** This check itself, where a page shows how to run it: it would run again, and again. */
const isThisCheck = (command: DocCommand): boolean => /\bnpm run( -s)? check:docs\b/.test(command.text);
const skipped = (command: DocCommand): boolean =>
  isThisCheck(command) || values.skip.some((text) => command.text.includes(text));
if (!commands.some((command) => /^npm (ci|install)\b/.test(command.text) && !skipped(command))) {
  // Without `npm ci` among them, the copy uses this checkout's packages.
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(copy, 'node_modules'));
}
const results: Result[] = [];
for (const [index, command] of commands.entries()) {
  const where = `${command.file}:${command.line}`;
  if (skipped(command)) {
    results.push({ command, status: 'SKIP' });
    console.log(`SKIP ${where} ${command.text}`);
    continue;
  }
  const result = await run(command, copy, index);
  results.push(result);
  console.log(
    `${result.status} ${where} ${command.text} (exit ${result.exitCode}, ${result.seconds?.toFixed(0)} s)`,
  );
  if (result.status === 'FAIL' && result.log !== undefined) console.log(tail(result.log));
}
const count = (status: Result['status']): number =>
  results.filter((result) => result.status === status).length;
console.log(
  `\n${count('PASS')} passed, ${count('FAIL')} failed, ${count('SKIP')} skipped; output of each in ${LOGS}`,
);
if (values.keep) console.log(`copy kept at ${copy}`);
else rmSync(copy, { recursive: true, force: true });
process.exitCode = count('FAIL') > 0 ? 1 : 0;
