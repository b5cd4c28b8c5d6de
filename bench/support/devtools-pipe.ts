import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';

/**
 * Headless Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
 * requests on fd 3, answers on fd 4, each a JSON message ended by a NUL byte), so no npm package
 * and no port is needed. Used by `npm run check:reports` (bench/report-render-check.ts).
 */

const TIMEOUT_MS = 60_000;

interface CdpMessage {
  readonly id?: number;
  readonly method?: string;
  readonly sessionId?: string;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly message: string };
}

export class Cdp {
  private nextId = 1;
  private buffer = '';
  private readonly pending = new Map<number, (message: CdpMessage) => void>();
  private readonly waiters: { method: string; resolve: () => void }[] = [];

  constructor(private readonly child: ChildProcess) {
    const output = child.stdio[4];
    if (output === null || output === undefined || !('on' in output))
      throw new Error('no DevTools pipe on fd 4');
    output.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let end = this.buffer.indexOf('\0');
      while (end !== -1) {
        this.dispatch(JSON.parse(this.buffer.slice(0, end)) as CdpMessage);
        this.buffer = this.buffer.slice(end + 1);
        end = this.buffer.indexOf('\0');
      }
    });
  }

  private dispatch(message: CdpMessage): void {
    if (message.id !== undefined) {
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
      return;
    }
    const index = this.waiters.findIndex((waiter) => waiter.method === message.method);
    if (index !== -1) {
      this.waiters[index]?.resolve();
      this.waiters.splice(index, 1);
    }
  }

  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const input = this.child.stdio[3];
    if (input === null || input === undefined || !('write' in input))
      throw new Error('no DevTools pipe on fd 3');
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`${method}: no answer in ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.pending.set(id, (message) => {
        clearTimeout(timer);
        if (message.error === undefined) resolve(message.result ?? {});
        else reject(new Error(`${method}: ${message.error.message}`));
      });
      input.write(
        `${JSON.stringify({ id, method, params, ...(sessionId === undefined ? {} : { sessionId }) })}\0`,
      );
    });
  }

  /** Resolves at the next event of this name (register before the call that causes it). */
  next(method: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ method, resolve }));
  }
}

export function startChromium(chromium: string, userDataDir: string): ChildProcess {
  // The flags that work on this project's machines (no sandbox as root, no GPU, and none of
  // Chromium's background connections, which a closed network refuses).
  return spawn(
    chromium,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--hide-scrollbars',
      '--remote-debugging-pipe',
      `--user-data-dir=${userDataDir}`,
      'about:blank',
    ],
    { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
  );
}
