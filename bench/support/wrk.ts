import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * wrk (https://github.com/wg/wrk), the C load generator, as a third client of the ceiling row when
 * it is installed: its CPU per request is what a client that does nothing but HTTP/1.1 over
 * keep-alive sockets costs. It runs as its own process and is timed from outside like the others
 * (support/window.ts); it prints "Running <duration> test @ <url>" as it starts its threads, which
 * is the start signal the parent waits for.
 */
export function wrkInstalled(): boolean {
  const probe = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined;
}

export interface WrkRun {
  readonly process: ChildProcess;
  /** Resolves when wrk said it started sending. */
  readonly started: Promise<void>;
  /** Resolves when wrk exited: its report, and when its load ended (epoch ms). */
  readonly finished: Promise<WrkSummary>;
  stop(): void;
}

export interface WrkSummary {
  /** Non-2xx/3xx responses plus socket errors (connect, read, write, timeout) wrk reported. */
  readonly errors: number;
  readonly loadEndedAtEpochMs: number;
  readonly report: string;
}

/** wrk's report lines that count failures, e.g. "Non-2xx or 3xx responses: 12". */
export function wrkErrors(report: string): number {
  let errors = 0;
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(report);
  if (non2xx?.[1] !== undefined) errors += Number(non2xx[1]);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(report);
  if (socket !== null) {
    errors += socket.slice(1).reduce((sum, count) => sum + Number(count), 0);
  }
  return errors;
}

/** The Lua script that makes wrk send the same POST as the other clients. */
function postScript(body: string, contentType: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'bench-wrk-')), 'post.lua');
  writeFileSync(
    path,
    `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = ${JSON.stringify(contentType)}\n`,
  );
  return path;
}

/** One wrk run: one thread (one core, as one Node process), `connections` sockets, `seconds` long. */
export function startWrk(options: {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly body: string;
  readonly contentType: string;
}): WrkRun {
  const script = postScript(options.body, options.contentType);
  const child = spawn(
    'wrk',
    ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '-s', script, options.url],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  let signalStart: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    signalStart = resolve;
  });
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
    if (line.startsWith('Running')) signalStart();
  });
  const finished = new Promise<WrkSummary>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const loadEndedAtEpochMs = Date.now();
      const report = lines.join('\n');
      if (code !== 0) {
        reject(new Error(`wrk exited with code ${code}: ${report}`));
        return;
      }
      resolve({ errors: wrkErrors(report), loadEndedAtEpochMs, report });
    });
  });
  // A wrk that never says it started (it failed at once) must not hold the parent for ever.
  void finished
    .catch(() => undefined)
    .then(() => {
      signalStart();
    });
  return {
    process: child,
    started,
    finished,
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}
