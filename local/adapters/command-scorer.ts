import { spawn } from 'node:child_process';

import type { QualityScorer, ScorerCall, ScorerPair } from '../../core/ports/index.js';

/**
 * Local mode's `QualityScorer`: the user's command (`quality.rule.scorer.command`, a program and its
 * arguments, run without a shell) started once per pair of answers, given
 * `{ "reference": { "tokens": [...] }, "candidate": { "tokens": [...] } }` as JSON on stdin, and
 * read for its score on stdout: `{ "score": s }` or a bare number. A program that exits with an
 * error, prints something else, or runs past its deadline (killed) gives no score, and says why.
 */

/** What is kept of a scorer's output: a score is a few bytes; more is not a score. */
const MAX_STDOUT_BYTES = 64 * 1024;
/** What a failure message quotes of the scorer's stderr. */
const STDERR_CHARS = 300;

export interface CommandScorerOptions {
  /** Where the command runs (relative paths in it resolve from here). @default process.cwd() */
  readonly cwd?: string;
}

export function createCommandScorer(
  command: readonly string[],
  options: CommandScorerOptions = {},
): QualityScorer {
  const [program, ...args] = command;
  return {
    score(pair: ScorerPair, timeoutMs: number): Promise<ScorerCall> {
      if (program === undefined) return Promise.resolve({ ok: false, problem: 'no command to run' });
      return runOnce(program, args, pair, timeoutMs, options.cwd ?? process.cwd());
    },
  };
}

function runOnce(
  program: string,
  args: readonly string[],
  pair: ScorerPair,
  timeoutMs: number,
  cwd: string,
): Promise<ScorerCall> {
  return new Promise((resolve) => {
    const child = spawn(program, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let settled = false;
    const finish = (call: ScorerCall) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(call);
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ ok: false, problem: `timed out after ${timeoutMs / 1000} s (killed)` });
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes <= MAX_STDOUT_BYTES) stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_CHARS) stderr += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      finish({ ok: false, problem: `could not start ${program}: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      if (code !== 0) {
        const said = stderr.trim().slice(0, STDERR_CHARS);
        finish({
          ok: false,
          problem: `exited with ${code === null ? `signal ${signal ?? 'unknown'}` : `code ${code}`}${said === '' ? '' : `: ${said}`}`,
        });
        return;
      }
      finish(readScore(Buffer.concat(stdout).toString('utf8'), stdoutBytes));
    });
    // A scorer that exits without reading stdin closes the pipe: its exit code says what happened.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(pair));
  });
}

/** `{ "score": s }` or a bare number, on stdout. */
export function readScore(text: string, bytes = text.length): ScorerCall {
  const expected = 'expected { "score": <number from 0 to 1> } or a number on stdout';
  if (bytes > MAX_STDOUT_BYTES) return { ok: false, problem: `printed ${bytes} bytes: ${expected}` };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, problem: `printed ${JSON.stringify(text.trim().slice(0, 100))}: ${expected}` };
  }
  const score =
    typeof parsed === 'number'
      ? parsed
      : typeof parsed === 'object' && parsed !== null && 'score' in parsed
        ? parsed.score
        : undefined;
  if (typeof score !== 'number') {
    return { ok: false, problem: `printed ${JSON.stringify(text.trim().slice(0, 100))}: ${expected}` };
  }
  return { ok: true, score };
}
