/**
 * One model server (`local/model-server/main.ts serve`, run from its JavaScript build:
 * model-server-build.ts) as a child process: started with its container environment, ready once it
 * has printed its port and answered `/ping`, stopped with SIGTERM then SIGKILL. Every live server
 * is also killed when this process exits, so a crash of the CLI leaves nothing behind;
 * `exit-with-parent.ts` covers the case where no exit hook can run.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MODEL_SERVER_ENV } from '../model-server/index.js';
import { modelServerBuild } from './model-server-build.js';

/** This file's folder (`import.meta.dirname` is missing under jest 29). */
const HERE = dirname(fileURLToPath(import.meta.url));

const REPO_ROOT = resolve(HERE, '..', '..');

/** Characters of the server's stderr kept for failure reasons. */
const STDERR_TAIL_CHARS = 8192;
/** Longest failure reason built from the stderr tail. */
const MAX_REASON_CHARS = 600;
const PING_INTERVAL_MS = 100;

/** Variables every server inherits from this process; nothing else leaks into the container. */
const INHERITED_VARIABLES = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT'];

export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface ModelServerProcessOptions {
  readonly modelDir: string;
  /** The container environment (the candidate's variables and the CPU plan's). */
  readonly environment: Readonly<Record<string, string>>;
  /** Time allowed to print the port and answer `/ping`. */
  readonly startTimeoutMs: number;
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/** Last resort when this process exits without stopping its servers: `exit` handlers must be synchronous. */
function killLiveServersOnExit(): void {
  for (const child of live) child.kill('SIGKILL');
}

export class ModelServerProcess {
  readonly pid: number | undefined;
  /** Resolves once the server listens and answers `/ping`; rejects with the reason it did not. */
  readonly ready: Promise<{ readonly port: number; readonly url: string }>;
  /** Resolves when the process has exited, whatever the reason. */
  readonly exited: Promise<ServerExit>;
  private readonly child: ChildProcess;
  private stderr = '';
  private exit: ServerExit | undefined;

  private constructor(options: ModelServerProcessOptions) {
    const environment: Record<string, string> = {};
    for (const name of INHERITED_VARIABLES) {
      const value = process.env[name];
      if (value !== undefined) environment[name] = value;
    }
    Object.assign(environment, options.environment, {
      [MODEL_SERVER_ENV.port]: '0',
      [MODEL_SERVER_ENV.host]: '127.0.0.1',
      [MODEL_SERVER_ENV.modelDir]: options.modelDir,
    });
    // process.execPath: no npx round trip, and the same Node as this process. Source maps: stack
    // traces in the server's stderr name the TypeScript sources' lines.
    const build = modelServerBuild();
    this.child = spawn(
      process.execPath,
      ['--enable-source-maps', '--import', build.exitWithParentUrl, build.main, 'serve'],
      { cwd: REPO_ROOT, env: environment, stdio: ['pipe', 'pipe', 'pipe'], detached: false },
    );
    this.pid = this.child.pid;
    live.add(this.child);
    if (!exitHookInstalled) {
      process.on('exit', killLiveServersOnExit);
      exitHookInstalled = true;
    }
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL_CHARS);
    });
    this.exited = new Promise((resolveExit) => {
      this.child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        live.delete(this.child);
        resolveExit(this.exit);
      });
      this.child.once('error', () => {
        // Spawning itself failed (no `exit` follows): report it as an exit without a code.
        if (this.exit !== undefined) return;
        this.exit = { code: null, signal: null };
        live.delete(this.child);
        resolveExit(this.exit);
      });
    });
    this.ready = this.waitUntilReady(options.startTimeoutMs);
    // The host awaits `ready` later; a rejection must not count as unhandled meanwhile.
    this.ready.catch(() => undefined);
  }

  /** Spawns the server; watch `ready` and `exited`. */
  static start(options: ModelServerProcessOptions): ModelServerProcess {
    return new ModelServerProcess(options);
  }

  get hasExited(): boolean {
    return this.exit !== undefined;
  }

  /** SIGTERM (graceful: answer accepted requests), then SIGKILL after `graceMs`; resolves once exited. */
  async stop(graceMs: number): Promise<ServerExit> {
    if (this.exit !== undefined) return this.exit;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      this.child.kill('SIGKILL');
    }, graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Immediate and synchronous, for a forced exit. */
  kill(): void {
    if (this.exit === undefined) this.child.kill('SIGKILL');
  }

  /** Why the server ended, with what it last wrote to stderr: a failure reason for DescribeEndpoint. */
  describeExit(exit: ServerExit): string {
    const how =
      exit.signal !== null
        ? `was killed by ${exit.signal}`
        : exit.code === null
          ? 'could not be started'
          : `exited with code ${exit.code}`;
    const detail = this.lastError();
    return truncate(`model server (pid ${this.pid ?? '?'}) ${how}${detail === '' ? '' : `: ${detail}`}`);
  }

  private async waitUntilReady(timeoutMs: number): Promise<{ port: number; url: string }> {
    const deadline = AbortSignal.timeout(timeoutMs);
    const listening = new Promise<number>((resolvePort, reject) => {
      const stdout = this.child.stdout;
      if (stdout === null) {
        reject(new Error('model server has no stdout to announce its port on'));
        return;
      }
      const lines = createInterface({ input: stdout });
      lines.on('line', (line) => {
        const port = listeningPort(line);
        if (port === undefined) return;
        lines.close();
        // Keep draining: a server whose stdout pipe fills up would block on its next write.
        stdout.resume();
        resolvePort(port);
      });
    });
    const failed = this.exited.then((exit) => {
      throw new Error(`${this.describeExit(exit)} before it was ready`);
    });
    const timedOut = new Promise<never>((_, reject) => {
      deadline.addEventListener('abort', () => {
        reject(new Error(`model server did not answer /ping within ${timeoutMs} ms${this.tailSuffix()}`));
      });
    });
    const port = await Promise.race([listening, failed, timedOut]);
    const url = `http://127.0.0.1:${port}`;
    await Promise.race([this.pingUntilHealthy(url, deadline), failed, timedOut]);
    return { port, url };
  }

  private async pingUntilHealthy(url: string, deadline: AbortSignal): Promise<void> {
    while (!deadline.aborted && this.exit === undefined) {
      try {
        const response = await fetch(`${url}/ping`, { signal: deadline });
        await response.arrayBuffer();
        if (response.ok) return;
      } catch {
        // Not answering yet: try again shortly.
      }
      await new Promise((resolveSleep) => setTimeout(resolveSleep, PING_INTERVAL_MS));
    }
  }

  /**
   * The server's last logged `error` (its log lines are JSON), else its last lines that are not
   * JSON logs (an uncaught exception, a native crash); its informational logs say nothing of why.
   */
  private lastError(): string {
    const lines = this.stderr
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '');
    for (const line of [...lines].reverse()) {
      const error = jsonField(line, 'error');
      if (error !== undefined) return error;
    }
    return lines
      .filter((line) => !isJsonLog(line))
      .slice(-3)
      .join(' | ');
  }

  private tailSuffix(): string {
    const detail = this.lastError();
    return detail === '' ? '' : ` (stderr: ${detail})`;
  }
}

function listeningPort(line: string): number | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { event, port } = parsed as { event?: unknown; port?: unknown };
    return event === 'listening' && typeof port === 'number' ? port : undefined;
  } catch {
    return undefined;
  }
}

function isJsonLog(line: string): boolean {
  try {
    const parsed: unknown = JSON.parse(line);
    return typeof parsed === 'object' && parsed !== null && 'event' in parsed;
  } catch {
    return false;
  }
}

function jsonField(line: string, field: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const value = (parsed as Record<string, unknown>)[field];
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

function truncate(text: string): string {
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}
