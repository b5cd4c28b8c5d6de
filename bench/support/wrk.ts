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
 * (support/window.ts). Its output reaches a pipe only when it exits (C's stdout is block-buffered
 * there), so its start signal is the server's: the count of responses moving (`waitForTraffic`).
 */
export function wrkInstalled(): boolean {
  const probe = spawnSync('wrk', ['--version'], { stdio: 'ignore' });
  return probe.error === undefined;
}

export interface WrkRun {
  readonly process: ChildProcess;
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
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line);
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
  return {
    process: child,
    finished,
    stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
    },
  };
}

/**
 * Resolves once the server has answered a request more than when this was called, polling its
 * count (`GET /served`) every 10 ms: the load of a client the parent cannot hear from has begun.
 * Rejects when `exited` settles first or after `timeoutMs`.
 */
export async function waitForTraffic(
  serverOrigin: string,
  exited: Promise<unknown>,
  timeoutMs: number,
): Promise<void> {
  const served = async (): Promise<number> => {
    const response = await fetch(`${serverOrigin}/served`);
    return ((await response.json()) as { served: number }).served;
  };
  const client = { exited: false };
  const ended = (): void => {
    client.exited = true;
  };
  void exited.then(ended, ended);
  const before = await served();
  const deadline = Date.now() + timeoutMs;
  while (!client.exited && Date.now() < deadline) {
    if ((await served()) > before) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(
    `no request reached the server within ${timeoutMs} ms of starting the client, or it exited`,
  );
}
