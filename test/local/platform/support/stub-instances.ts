/**
 * Instances for local async endpoint tests: real processes (so pids can be checked) running a tiny
 * deterministic model that keeps the SageMaker container contract (`GET /ping`,
 * `POST /invocations`, the port announced on stdout as the project's model server does). Plain
 * JavaScript run by `node -e`: it starts in tens of milliseconds, where the real model server
 * needs a second or more.
 *
 * The request body (JSON) tells the stub what to do: `{ "sleepMs": 200 }` answers after 200 ms,
 * `{ "status": 500, "error": "…" }` answers with that status and `{"error": …}`. A success answers
 * `{ pid, startedAt, endedAt, contentType, echo }`: the test reads from the outputs which instance
 * ran a request and when.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { AsyncInstance, InstanceLauncher } from '../../../../local/platform/instances.js';

const STUB_SOURCE = String.raw`
import { createServer } from 'node:http';
const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/ping') {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"status":"Healthy"}');
    return;
  }
  if (request.method !== 'POST' || request.url !== '/invocations') {
    response.writeHead(404);
    response.end();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const startedAt = Date.now();
    let command = {};
    try { command = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { command = {}; }
    setTimeout(() => {
      if (typeof command.status === 'number' && command.status >= 400) {
        response.writeHead(command.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: command.error ?? 'stub model error' }));
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({
        pid: process.pid, startedAt, endedAt: Date.now(),
        contentType: request.headers['content-type'], echo: command.echo ?? null,
      }));
    }, Number(command.sleepMs ?? 0));
  });
});
if (process.env.STUB_FAIL_START === '1') {
  process.stderr.write('stub: cannot load the model\n');
  process.exit(3);
}
setTimeout(() => {
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(JSON.stringify({ event: 'listening', port: server.address().port }) + '\n');
  });
}, Number(process.env.STUB_START_DELAY_MS ?? 0));
process.on('SIGTERM', () => process.exit(0));
// Like the model server's exit-with-parent: gone when the test process goes.
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
`;

export interface StubLauncherOptions {
  /** Delay before the stub listens: a slower instance start. */
  readonly startDelayMs?: number;
  /** The stub exits with code 3 before listening: an instance that cannot start. */
  readonly failStart?: boolean;
}

export interface StubLauncher {
  readonly launch: InstanceLauncher;
  /** Pids of every stub started, in order. */
  readonly pids: number[];
}

export function stubLauncher(options: StubLauncherOptions = {}): StubLauncher {
  const pids: number[] = [];
  const launch: InstanceLauncher = () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', STUB_SOURCE], {
      env: {
        PATH: process.env.PATH ?? '',
        STUB_START_DELAY_MS: String(options.startDelayMs ?? 0),
        STUB_FAIL_START: options.failStart === true ? '1' : '0',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) pids.push(child.pid);
    const exited = new Promise<string>((resolve) => {
      child.once('exit', (code, signal) => {
        resolve(signal === null ? `exited with code ${code ?? '?'}` : `killed by ${signal}`);
      });
    });
    const ready = new Promise<string>((resolve, reject) => {
      const stdout = child.stdout;
      const lines = createInterface({ input: stdout });
      lines.on('line', (line) => {
        const { event, port } = JSON.parse(line) as { event?: string; port?: number };
        if (event !== 'listening' || port === undefined) return;
        lines.close();
        stdout.resume();
        resolve(`http://127.0.0.1:${port}`);
      });
      void exited.then((how) => {
        reject(new Error(`stub instance (pid ${child.pid ?? '?'}) ${how} before it was ready`));
      });
    });
    ready.catch(() => undefined);
    const instance: AsyncInstance = {
      pid: child.pid,
      ready,
      exited,
      stop: async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      },
      kill: () => {
        child.kill('SIGKILL');
      },
    };
    return instance;
  };
  return { launch, pids };
}

/** The JSON body of a stub request. */
export function stubCommand(command: {
  sleepMs?: number;
  status?: number;
  error?: string;
  echo?: string;
}): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(command));
}

/** What the stub answered for a successful request. */
export interface StubAnswer {
  readonly pid: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly contentType: string;
  readonly echo: string | null;
}
