import { readFile } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';
import { describeError } from '../../handlers/contracts/errors.js';

/**
 * What both local CLIs (`npm start`, `npm run start:async`) share: reading the run input, the
 * Ctrl-C handling, paths and tables for the terminal.
 */

/** One Ctrl-C can arrive twice (from the terminal and relayed by tsx or npm): ignore the echo. */
const SAME_KEYPRESS_MS = 1000;
/** 128 + SIGINT, as shells report an interrupted command. */
export const INTERRUPTED_EXIT_CODE = 130;

/** The run input file as JSON, or `undefined` after printing why it cannot be read. */
export async function readInput(path: string, errorLine: (text: string) => void): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    errorLine(`Cannot read the run input ${path}: ${describeError(error)}; expected a JSON file`);
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    errorLine(
      `The run input ${path} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
}

/**
 * First Ctrl-C (or SIGTERM): abort the run, which then cleans up. A second one: kill the model
 * servers now and exit without clean-up. Returns the function that removes the handlers.
 */
export function handleSignals(
  interrupt: AbortController,
  killAllNow: () => void,
  line: (text: string) => void,
): () => void {
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (firstSignalAt === undefined) {
      firstSignalAt = performance.now();
      line(`${signal}: stopping the run, then cleaning up (press Ctrl-C again to force)`);
      interrupt.abort(new Error(signal));
      return;
    }
    if (performance.now() - firstSignalAt < SAME_KEYPRESS_MS) return;
    killAllNow();
    process.stderr.write(`${signal} again: model servers killed, exiting without clean-up\n`);
    process.exit(INTERRUPTED_EXIT_CODE);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** The model-server processes a host launched, for the "no process left" check. */
export function pidsOf(host: {
  launchedServers(): readonly { readonly pid: number | undefined }[];
}): number[] {
  return host.launchedServers().flatMap((server) => (server.pid === undefined ? [] : [server.pid]));
}

/** Relative to the working directory when inside it, else absolute. */
export function displayPath(cwd: string, path: string): string {
  const inside = relative(cwd, path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** A plain-text table, columns padded to their widest cell. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const render = (cells: readonly string[]): string =>
    `  ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')}`.trimEnd();
  return [render(headers), render(widths.map((width) => '-'.repeat(width))), ...rows.map(render)];
}
