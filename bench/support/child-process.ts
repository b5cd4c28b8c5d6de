import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** Path of a script in bench/children/. */
export function childScript(name: string): string {
  return fileURLToPath(new URL(`../children/${name}`, import.meta.url));
}

export interface RunningChild {
  readonly process: ChildProcess;
  /** Resolves with the next JSON line the child prints on stdout. */
  nextMessage<T>(): Promise<T>;
  /** Ends the child (SIGTERM to this one process) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts a TypeScript child through tsx, in its own process: a load generator must not share an
 * event loop (or a core) with the server it measures. Children talk back in JSON lines on stdout.
 */
export function startChild(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): RunningChild {
  // tsx resolved from this file, so children start whatever the working directory.
  const child = spawn(
    process.execPath,
    ['--import', import.meta.resolve('tsx'), childScript(script), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'], env },
  );
  const queue: unknown[] = [];
  const waiters: ((value: unknown) => void)[] = [];
  const failures: ((error: Error) => void)[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const message: unknown = JSON.parse(line);
    const waiter = waiters.shift();
    failures.shift();
    if (waiter === undefined) queue.push(message);
    else waiter(message);
  });
  const exited = new Promise<void>((resolve) => {
    child.on('exit', (code) => {
      for (const fail of failures.splice(0))
        fail(new Error(`child ${script} exited with code ${code} before answering`));
      waiters.splice(0);
      resolve();
    });
  });
  return {
    process: child,
    nextMessage<T>() {
      if (queue.length > 0) return Promise.resolve(queue.shift() as T);
      return new Promise<T>((resolve, reject) => {
        waiters.push((value) => {
          resolve(value as T);
        });
        failures.push(reject);
      });
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs a child to completion and returns the first JSON line it printed. */
export async function runChild<T>(
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const child = startChild(script, args, env);
  try {
    return await child.nextMessage<T>();
  } finally {
    await child.stop();
  }
}
