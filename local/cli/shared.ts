import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import {
  CleanUpStatuses,
  cleanUpInCause,
  completedInCause,
  describeError,
  type InputIssue,
  EXIT_CODES,
  exitCodeOfRun,
  isValidRunId,
  describeGiven,
  jsonTextBoundIssues,
} from '../../core/contracts/index.js';
import type { FileObjectStore } from '../platform/index.js';
import { sweepOrphanedScratch } from '../platform/index.js';
import type { RunResult } from '../runner/index.js';
import type { LocalCleanUp } from '../environment/index.js';
import { causeMessage } from './progress.js';
import { type CliArguments, parseCliArguments, UsageError } from './args.js';

/**
 * What both local CLIs (`npm start`, `npm run start:async`) share: reading the run input, the
 * Ctrl-C handling, paths and tables for the terminal.
 */

/** One Ctrl-C can arrive twice (from the terminal and relayed by tsx or npm): ignore the echo. */
const SAME_KEYPRESS_MS = 1000;
/**
 * The project's one exit-code scheme (core/contracts/exit-codes.ts): 0 recommended or every
 * input completed, 1 run failed, 2 bad input, 3 no candidate met the SLA, 4 every candidate (or
 * input) failed, 5 partial; 128 + the signal's number for a run a signal stopped, as shells report
 * it: 130 for SIGINT (Ctrl-C, or the caller's abort), 143 for SIGTERM (what CI sends).
 */
export { EXIT_CODES };

/** The exit code of a run stopped through `signal`: 143 when SIGTERM stopped it, else 130. */
export function interruptedExitCode(signal: AbortSignal): number {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.message === 'SIGTERM'
    ? EXIT_CODES.terminated
    : EXIT_CODES.interrupted;
}

/** `local-20250101-120000-ab12`: sortable, and unique enough for runs started by hand. */
export function defaultRunId(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `local-${stamp}-${randomBytes(2).toString('hex')}`;
}

export interface CliStartIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly cwd?: string;
}

/** Either the CLI ends before running (usage, --help, a bad run id or input file), or it runs. */
export type CliStart =
  | { readonly kind: 'exit'; readonly exitCode: number }
  | {
      readonly kind: 'run';
      readonly args: CliArguments;
      readonly runId: string;
      readonly inputPath: string;
      /** The input file's JSON, not yet validated. */
      readonly document: unknown;
      readonly cwd: string;
      readonly errorLine: (text: string) => void;
    };

/** What both CLIs do first: parse the arguments, check the run id, read the input file. */
export async function startCli(argv: readonly string[], io: CliStartIo, usage: string): Promise<CliStart> {
  const cwd = io.cwd ?? process.cwd();
  const errorLine = (text: string): void => {
    io.stderr.write(`${text}\n`);
  };
  let args: CliArguments;
  try {
    args = parseCliArguments(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    errorLine(`${error.message}\n\n${usage}`);
    return { kind: 'exit', exitCode: EXIT_CODES.invalid };
  }
  if (args.help) {
    io.stdout.write(`${usage}\n`);
    return { kind: 'exit', exitCode: EXIT_CODES.ok };
  }
  // Temp files of earlier runs that were killed (SIGKILL leaves no chance to remove them). Said with
  // --verbose only: nothing is left for the user to do, and test workers that jest ends leave some
  // too, so every first `npm start` after `npm test` announced "runs that were killed".
  const swept = sweepOrphanedScratch();
  if (swept.length > 0 && args.verbose) {
    // A plan's stdout is the plan alone (`--plan --json` parses it).
    (args.plan ? io.stderr : io.stdout).write(
      `Removed the temporary files of ${swept.length} earlier local run(s) that were killed\n`,
    );
  }
  const runId = args.runId ?? defaultRunId(new Date());
  if (!isValidRunId(runId)) {
    errorLine(`--run-id: got ${describeGiven(runId)}, expected 1–80 letters, digits, "-" or "_"`);
    return { kind: 'exit', exitCode: EXIT_CODES.invalid };
  }
  const inputPath = resolve(cwd, args.inputPath ?? '');
  const document = await readInput(inputPath, errorLine, displayPath(cwd, inputPath));
  if (document === undefined) return { kind: 'exit', exitCode: EXIT_CODES.invalid };
  return { kind: 'run', args, runId, inputPath, document, cwd, errorLine };
}

/** "Invalid run input in FILE:" and one line per issue: how both CLIs refuse an input. */
export function printRefusal(
  errorLine: (text: string) => void,
  shownAs: string,
  issues: readonly InputIssue[],
): void {
  errorLine(`Invalid run input in ${shownAs}:`);
  for (const issue of issues) errorLine(`  - ${issue.field}: got ${issue.given}, expected ${issue.expected}`);
}

/** The run input file as JSON, or `undefined` after printing why it cannot be read (`shownAs`). */
export async function readInput(
  path: string,
  errorLine: (text: string) => void,
  shownAs: string = path,
): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    errorLine(`Cannot read the run input ${path}: ${describeError(error)}; expected a JSON file`);
    return undefined;
  }
  // Before JSON.parse builds them: a file nested 100,000 levels deep is refused at level 33.
  const depth = jsonTextBoundIssues(text);
  if (depth.length > 0) {
    printRefusal(errorLine, shownAs, depth);
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
function handleSignals(
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
    process.exit(signal === 'SIGTERM' ? EXIT_CODES.terminated : EXIT_CODES.interrupted);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** What stops a local run: Ctrl-C (when the CLI owns the process) or the caller's signal. */
export interface RunInterruption {
  readonly signal: AbortSignal;
  /** Removes the signal handlers and the listener on the caller's signal. */
  release(): void;
}

export function interruptRun(
  io: { readonly signal?: AbortSignal; readonly handleSignals?: boolean },
  killAllNow: () => void,
  line: (text: string) => void,
): RunInterruption {
  const interrupt = new AbortController();
  const stopHandlingSignals =
    io.handleSignals === true ? handleSignals(interrupt, killAllNow, line) : undefined;
  const onExternalAbort = (): void => {
    interrupt.abort(new Error('interrupted'));
  };
  io.signal?.addEventListener('abort', onExternalAbort, { once: true });
  if (io.signal?.aborted === true) onExternalAbort();
  return {
    signal: interrupt.signal,
    release: () => {
      io.signal?.removeEventListener('abort', onExternalAbort);
      stopHandlingSignals?.();
    },
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

/**
 * A terminal line with every `s3://local-artifacts/…` URI shown as the file the local store keeps
 * it in (a local user opens files, not a bucket that does not exist). A URI's
 * trailing punctuation stays outside it; a URI the store has no file for stays as it is.
 */
export function withLocalFiles(text: string, store: Pick<FileObjectStore, 'pathOf'>, cwd: string): string {
  return text.replace(/s3:\/\/local-artifacts\/\S+?(?=[.,;:)"']?(?:\s|$))/g, (uri) => {
    try {
      return displayPath(cwd, store.pathOf(uri));
    } catch {
      return uri;
    }
  });
}

/** The one plain-text table (core/report/text-table.ts), by its local name. */
export { textTable as table } from '../../core/report/index.js';

/**
 * What both CLIs print when a run did not succeed: its error (or how it ended) and what clean-up
 * did; returns the exit code (130 or 143 for a run the user interrupted, 2 for a refused one, 1
 * otherwise).
 */
export function reportUnsuccessfulRun(context: {
  readonly result: Exclude<RunResult, { status: 'SUCCEEDED' }>;
  readonly cleanUp: LocalCleanUp | undefined;
  /** What a successful clean-up removed, e.g. "every endpoint was deleted". */
  readonly deleted: string;
  readonly runId: string;
  readonly interrupted: boolean;
  /** The exit code of an interrupted run (see `interruptedExitCode`). @default 130 */
  readonly interruptedExitCode?: number;
  readonly errorLine: (text: string) => void;
  /** Shows the run's S3 URIs as this machine's files (`withLocalFiles`). @default - as they are */
  readonly localFiles?: (text: string) => string;
}): number {
  const { result, cleanUp, runId } = context;
  const local = context.localFiles ?? ((text: string): string => text);
  const cleanUpText =
    cleanUp === undefined
      ? ''
      : cleanUp.ok
        ? ` Clean-up ran: ${context.deleted} and every model server stopped.`
        : ` Clean-up failed (${cleanUp.error}); every model server was stopped anyway.`;
  if (result.status === 'FAILED') {
    context.errorLine(`Run ${runId} failed: ${result.error}: ${causeMessage(result.cause)}.${cleanUpText}`);
    // The workflow's own clean-up after the failure adds its account to the cause.
    const account = cleanUpInCause(result.cause);
    if (account !== undefined) context.errorLine(account);
    // What the run completed before it failed, and where (core/contracts/completed-work.ts).
    const completed = completedInCause(result.cause);
    if (completed !== undefined) {
      context.errorLine(local(completed.message));
      for (const location of completed.locations) context.errorLine(`  ${local(location)}`);
    }
  } else
    context.errorLine(
      `Run ${runId} ${context.interrupted ? 'interrupted' : result.status.toLowerCase()}.${cleanUpText}`,
    );
  if (context.interrupted && result.status === 'ABORTED') {
    return context.interruptedExitCode ?? EXIT_CODES.interrupted;
  }
  // A run the workflow refused (invalid input, over budget) is a bad input: 2, as before it starts.
  return exitCodeOfRun(result.status === 'FAILED' ? { status: result.status, error: result.error } : result);
}

/**
 * After a run that succeeded: the clean-up's account, printed only when it left something (or
 * failed), so that a user never believes everything is gone when it is not. Returns whether it did.
 */
export function reportCleanUpLeftovers(
  cleanUp: { readonly status?: string; readonly message?: string } | undefined,
  errorLine: (text: string) => void,
): boolean {
  if (cleanUp?.message === undefined || cleanUp.status === CleanUpStatuses.complete) return false;
  errorLine(`Warning: ${cleanUp.message}`);
  return true;
}
