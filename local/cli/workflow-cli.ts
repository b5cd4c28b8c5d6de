/**
 * The skeleton both local CLIs share (`npm start`, `npm run start:async`): the command line and its
 * exit codes, the scratch sweep, the first checks of the input, the environment and its
 * interruption (Ctrl-C, SIGTERM), the synthesized workflow run on the local runner with live
 * progress, what an unsuccessful run did and left, and the summary; or, with `--plan`, the plan
 * alone. Each workflow supplies its hooks: its usage, its input checks, its environment, progress
 * reporter, plan, run and summary.
 */
import type { MachineLoadSample } from '../platform/index.js';
import { resolve } from 'node:path';
import {
  type CleanUpAccount,
  cleanUpInCause,
  describeError,
  type InputIssue,
  exitCodeOfRun,
  inputBoundIssues,
} from '../../core/contracts/index.js';
import type { Logger } from '../../core/ports/index.js';
import { createConsoleLogger } from '../platform/index.js';
import type { ExtractedStateMachine, JsonValue, RunnerEvent } from '../runner/index.js';
import { cachedSynthesizedWorkflows, type SynthesizedWorkflows } from '../synthesis/index.js';
import type {
  LocalWorkflowEnvironment,
  LocalWorkflowOutcome,
  LocalWorkflowRunOptions,
} from '../environment/index.js';
import type { CliArguments } from './args.js';
import { causeMessage } from './progress.js';
import { writeRunsIndex } from './runs-index.js';
import { acquireRunLock, type RunLockResult } from './run-lock.js';
import {
  displayPath,
  EXIT_CODES,
  interruptedExitCode,
  interruptRun,
  type CliStart,
  pidsOf,
  printRefusal,
  reportCleanUpLeftovers,
  reportUnsuccessfulRun,
  startCli,
  withLocalFiles,
} from './shared.js';

export interface CliIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
  /** Aborting it has the effect of Ctrl-C. */
  readonly signal?: AbortSignal;
  /** Handle SIGINT/SIGTERM (the real process): the first stops the run and cleans up, the second forces. */
  readonly handleSignals?: boolean;
  /** Folder that relative paths start from. @default process.cwd() */
  readonly cwd?: string;
  /** An already synthesized stack (tests share one); otherwise synthesized here. */
  readonly workflows?: SynthesizedWorkflows;
  /**
   * Reads the machine's load for the run's report (local/platform/machine-load.ts); tests inject
   * readings so that no report depends on how busy the machine running them is.
   * @default this machine's readings
   */
  readonly sampleMachineLoad?: () => MachineLoadSample;
}

/** What every local CLI run returns. */
export interface CliRunOutcome {
  readonly exitCode: number;
  readonly runId?: string;
  /** Every model server process the run started (all stopped when this resolves). */
  readonly serverPids: readonly number[];
}

/** A run that succeeded also returns what its workflow's summary adds (`Extra`: its files). */
export type WorkflowCliOutcome<Extra extends object> = CliRunOutcome | (CliRunOutcome & Extra);

/** The progress output as the skeleton uses it. */
export interface CliReporter {
  /** A permanent line, prefixed with the elapsed time. */
  line(text: string): void;
  onRunnerEvent(event: RunnerEvent): void;
}

/** What the hooks get once the command line is read. */
export interface CliRun<Environment extends LocalWorkflowEnvironment, Reporter extends CliReporter> {
  readonly args: CliArguments;
  readonly runId: string;
  readonly cwd: string;
  /** The input after `checkInput`. */
  readonly input: unknown;
  readonly io: CliIo;
  readonly reporter: Reporter;
  readonly environment: Environment;
  /** The synthesized workflows (synthesized on first call, with a progress line, unless given). */
  readonly workflows: () => SynthesizedWorkflows;
  /** Prints a line on stderr. */
  readonly errorLine: (text: string) => void;
  /** Prints "Invalid run input in FILE:" and one line per issue, on stderr. */
  readonly refuse: (issues: readonly InputIssue[]) => void;
}

/** A plan, as `--plan --json` and `--plan` print it. */
export interface PrintablePlan {
  readonly json: JsonValue;
  readonly text: string;
}

export interface WorkflowCli<
  Environment extends LocalWorkflowEnvironment,
  Reporter extends CliReporter,
  Prepared,
  Outcome extends LocalWorkflowOutcome,
  Extra extends object,
> {
  /** Printed by --help and after a wrong command line. */
  readonly usage: string;
  /** The workflow's name in the synthesis lines, e.g. "optimization". */
  readonly workflowName: string;
  /**
   * The run's report inside `<runs>/<run id>/` (e.g. `report.json`): a run id whose report exists
   * is refused, as is one a running run holds (local/cli/run-lock.ts).
   */
  readonly reportFile: string;
  /** Its state machine among the synthesized ones. */
  stateMachine(workflows: SynthesizedWorkflows): ExtractedStateMachine;
  /** Local defaults, and what the input alone shows invalid (refused at once, exit code 2). */
  checkInput(document: unknown): { readonly input: unknown; readonly issues: readonly InputIssue[] };
  createReporter(options: {
    readonly output: { write(text: string): unknown; readonly isTTY: boolean };
    readonly elapsedMs: () => number;
    /** The environment, once created. */
    readonly environment: () => Environment | undefined;
  }): Reporter;
  createEnvironment(options: {
    readonly storeDir: string;
    readonly runsDir: string;
    /** `--plan`: the store keeps its writes in memory, so nothing is created. */
    readonly writesInMemory: boolean;
    readonly logger: Logger;
    readonly reporter: Reporter;
    readonly workflows: () => SynthesizedWorkflows;
  }): Environment;
  /**
   * Writes the example objects and checks what the input refers to, before anything is created;
   * prints the run's first line. `undefined` after refusing the input (exit code 2).
   */
  prepare(run: CliRun<Environment, Reporter>): Promise<Prepared | undefined>;
  /**
   * Runs the state machine over the environment: `execution` has the input, the run id, the
   * interruption and the progress reporter's event handler.
   */
  run(
    run: CliRun<Environment, Reporter>,
    execution: LocalWorkflowRunOptions & { readonly signal: AbortSignal; readonly prepared: Prepared },
  ): Promise<Outcome>;
  /**
   * `--plan`: writes the example objects the input names (in memory: the environment's writes stay
   * there) and runs the first state's validation and planning over the environment. Returns the
   * plan as JSON (`--json`) and as text, or `undefined` after refusing the input (exit code 2).
   */
  plan(run: CliRun<Environment, Reporter>): Promise<PrintablePlan | undefined>;
  /** What a successful clean-up removed, e.g. "every endpoint was deleted". */
  readonly deleted: string;
  /** Prints the summary of a run that succeeded; returns what the outcome adds (its files). */
  summarize(run: CliRun<Environment, Reporter>, output: JsonValue, prepared: Prepared): Promise<Extra>;
  /** The run's outcome in the output `summarize` takes, for the exit code (core/contracts/exit-codes.ts). */
  outcomeOf(output: JsonValue): string | undefined;
  /** The status of the run's proof at the target, when it proved one (exit code 7 when not held). */
  proofOf?(output: JsonValue): string | undefined;
  /**
   * A run that ended FAILED with a result all the same (the optimization's "No recommendation",
   * whose report is written): that result as `summarize` takes it, else `undefined`.
   */
  resultOfFailedRun?(failure: { readonly error: string; readonly cause: string }): JsonValue | undefined;
}

/** Runs a local workflow from its command line; never throws for a run that failed. */
export async function runWorkflowCli<
  Environment extends LocalWorkflowEnvironment,
  Reporter extends CliReporter,
  Prepared,
  Outcome extends LocalWorkflowOutcome,
  Extra extends object,
>(
  argv: readonly string[],
  io: CliIo,
  cli: WorkflowCli<Environment, Reporter, Prepared, Outcome, Extra>,
): Promise<WorkflowCliOutcome<Extra>> {
  const started = performance.now();
  const start = await startCli(argv, io, cli.usage);
  if (start.kind === 'exit') return { exitCode: start.exitCode, serverPids: [] };
  const { args, runId, inputPath, document, cwd, errorLine } = start;
  const refuse = (issues: readonly InputIssue[]): void => {
    printRefusal(errorLine, displayPath(cwd, inputPath), issues);
  };
  // Depth and size before the local defaults or any check walks the file (inputBoundIssues).
  const bounds = inputBoundIssues(document);
  const { input, issues } =
    bounds.length > 0 ? { input: document, issues: bounds } : cli.checkInput(document);
  if (issues.length > 0) {
    refuse(issues);
    return { exitCode: EXIT_CODES.invalid, serverPids: [] };
  }
  // One run per run id, taken before anything of the run exists; a plan creates nothing and takes none.
  let locked: RunLockResult | undefined;
  try {
    locked = args.plan
      ? undefined
      : acquireRunLock({
          runsDir: resolve(cwd, args.runsDir),
          runId,
          reportFile: cli.reportFile,
          display: (path) => displayPath(cwd, path),
        });
  } catch (error) {
    errorLine(
      `--runs: got ${args.runsDir}, which cannot hold the run's folder (${describeError(error)}), expected a folder this user can write`,
    );
    return { exitCode: EXIT_CODES.invalid, runId, serverPids: [] };
  }
  if (locked?.kind === 'refused') {
    errorLine(locked.message);
    return { exitCode: EXIT_CODES.invalid, runId, serverPids: [] };
  }
  let exitCode: number = EXIT_CODES.runFailed;
  try {
    const outcome = await runChecked(
      { ...start, input, refuse, started, lockNotice: locked?.notice },
      io,
      cli,
    );
    exitCode = outcome.exitCode;
    return outcome;
  } finally {
    // After the clean-up: the run id stays taken until nothing of the run is left running.
    locked?.lock.release();
    if (locked !== undefined) refreshRunsIndex(resolve(cwd, args.runsDir), cwd, io, exitCode);
  }
}

/**
 * Rewrites `<runs>/index.html` and `index.json` after a run, whatever its outcome, and names the
 * page unless the run was refused (exit code 2: its refusal is the whole output). An index that
 * cannot be written is a warning: the run and its report stand without it.
 */
function refreshRunsIndex(runsDir: string, cwd: string, io: CliIo, exitCode: number): void {
  try {
    const { html } = writeRunsIndex(runsDir, { source: displayPath(cwd, runsDir) });
    if (exitCode !== EXIT_CODES.invalid) io.stdout.write(`Runs index: ${displayPath(cwd, html)}\n`);
  } catch (error) {
    io.stderr.write(
      `Warning: the runs index in ${displayPath(cwd, runsDir)} was not written: ${describeError(error)}\n`,
    );
  }
}

/** The run (or its plan) once the command line, the input and the run id are checked. */
async function runChecked<
  Environment extends LocalWorkflowEnvironment,
  Reporter extends CliReporter,
  Prepared,
  Outcome extends LocalWorkflowOutcome,
  Extra extends object,
>(
  checked: Extract<CliStart, { kind: 'run' }> & {
    readonly input: unknown;
    readonly refuse: (issues: readonly InputIssue[]) => void;
    /** `performance.now()` when the CLI started. */
    readonly started: number;
    readonly lockNotice: string | undefined;
  },
  io: CliIo,
  cli: WorkflowCli<Environment, Reporter, Prepared, Outcome, Extra>,
): Promise<WorkflowCliOutcome<Extra>> {
  const { args, runId, cwd, errorLine, input, refuse, started, lockNotice } = checked;
  // The reporter is made first (the environment logs through it) and reads the environment later.
  const made: { environment?: Environment } = {};
  // A plan's stdout is the plan alone (`--json` parses it): progress lines go to stderr.
  const progressOutput = args.plan
    ? { write: (text: string) => io.stderr.write(text), isTTY: false }
    : { write: (text: string) => io.stdout.write(text), isTTY: io.stdout.isTTY === true };
  const reporter = cli.createReporter({
    output: progressOutput,
    elapsedMs: () => performance.now() - started,
    environment: () => made.environment,
  });
  const logger = createConsoleLogger({
    write: (line) => {
      reporter.line(line.trimEnd());
    },
    level: args.verbose ? 'info' : 'warn',
  });
  let workflows = io.workflows;
  const synthesized = (): SynthesizedWorkflows => {
    if (workflows !== undefined) return workflows;
    // Synthesized once per change of the sources, then read from .cache/synth/ (local/synthesis/synthesis-cache.ts).
    const read = cachedSynthesizedWorkflows({
      onMiss: () => {
        reporter.line(`Synthesizing the CDK stack to get the ${cli.workflowName} state machine…`);
      },
    });
    workflows = read.workflows;
    const name = cli.stateMachine(workflows).name;
    const where = displayPath(cwd, read.path);
    reporter.line(
      read.cached ? `Read ${name}, synthesized earlier, from ${where}` : `Synthesized ${name} into ${where}`,
    );
    return workflows;
  };
  const created = cli.createEnvironment({
    storeDir: resolve(cwd, args.storeDir),
    runsDir: resolve(cwd, args.runsDir),
    writesInMemory: args.plan,
    logger,
    reporter,
    workflows: synthesized,
  });
  made.environment = created;
  const run: CliRun<Environment, Reporter> = {
    args,
    runId,
    cwd,
    input,
    io,
    reporter,
    environment: created,
    workflows: synthesized,
    errorLine,
    refuse,
  };
  if (args.plan) return printPlan(run, cli);
  if (lockNotice !== undefined) reporter.line(lockNotice);
  const interrupt = interruptRun(
    io,
    () => {
      created.host.killAllNow();
    },
    (text) => {
      reporter.line(text);
    },
  );
  try {
    const prepared = await cli.prepare(run);
    if (prepared === undefined) return { exitCode: EXIT_CODES.invalid, runId, serverPids: [] };
    const stateMachine = cli.stateMachine(synthesized());
    if (interrupt.signal.aborted) {
      errorLine('Interrupted before the run started: nothing was created.');
      return { exitCode: interruptedExitCode(interrupt.signal), runId, serverPids: [] };
    }
    const outcome = await cli.run(run, {
      stateMachine,
      input: input as JsonValue,
      runId,
      signal: interrupt.signal,
      onEvent: (event) => {
        reporter.onRunnerEvent(event);
      },
      prepared,
    });
    await created.close();
    const serverPids = pidsOf(created.host);
    const { result } = outcome;
    const failedWithResult = result.status === 'FAILED' ? cli.resultOfFailedRun?.(result) : undefined;
    if (result.status === 'FAILED' && failedWithResult !== undefined) {
      const extra = await cli.summarize(run, failedWithResult, prepared);
      errorLine(
        `Run ${runId} ended FAILED with ${result.error}: ${withLocalFiles(causeMessage(result.cause), created.store, cwd)}`,
      );
      const account = cleanUpInCause(result.cause);
      if (account !== undefined && account.includes('LEFT ')) errorLine(`Warning: ${account}`);
      const exitCode = exitCodeOfRun({
        status: result.status,
        error: result.error,
        outcome: cli.outcomeOf(failedWithResult),
      });
      return { exitCode, runId, serverPids, ...extra };
    }
    if (result.status !== 'SUCCEEDED') {
      const exitCode = reportUnsuccessfulRun({
        result,
        cleanUp: outcome.cleanUp,
        deleted: cli.deleted,
        runId,
        interrupted: interrupt.signal.aborted,
        interruptedExitCode: interruptedExitCode(interrupt.signal),
        errorLine,
        localFiles: (text) => withLocalFiles(text, created.store, cwd),
      });
      return { exitCode, runId, serverPids };
    }
    const extra = await cli.summarize(run, result.output, prepared);
    const { cleanUp } = result.output as { readonly cleanUp?: CleanUpAccount };
    reportCleanUpLeftovers(cleanUp, errorLine);
    const proof = cli.proofOf?.(result.output);
    const exitCode = exitCodeOfRun({
      status: result.status,
      outcome: cli.outcomeOf(result.output),
      ...(proof === undefined ? {} : { proof }),
    });
    return { exitCode, runId, serverPids, ...extra };
  } catch (error) {
    errorLine(`Error: ${describeError(error)}`);
    if (args.verbose && error instanceof Error && error.stack !== undefined) errorLine(error.stack);
    return { exitCode: EXIT_CODES.runFailed, runId, serverPids: pidsOf(created.host) };
  } finally {
    interrupt.release();
    await created.close();
  }
}

/**
 * `--plan`: the plan on stdout (JSON with `--json`), exit code 0; a refusal as a run's, exit code 2.
 * No interruption handling: nothing is created, so Ctrl-C may end the process as it is.
 */
async function printPlan<
  Environment extends LocalWorkflowEnvironment,
  Reporter extends CliReporter,
  Prepared,
  Outcome extends LocalWorkflowOutcome,
  Extra extends object,
>(
  run: CliRun<Environment, Reporter>,
  cli: WorkflowCli<Environment, Reporter, Prepared, Outcome, Extra>,
): Promise<CliRunOutcome> {
  const { args, runId, environment, io, errorLine } = run;
  try {
    const plan = await cli.plan(run);
    if (plan === undefined) return { exitCode: EXIT_CODES.invalid, runId, serverPids: [] };
    io.stdout.write(args.json ? `${JSON.stringify(plan.json, null, 2)}\n` : plan.text);
    return { exitCode: EXIT_CODES.ok, runId, serverPids: pidsOf(environment.host) };
  } catch (error) {
    errorLine(`Error: ${describeError(error)}`);
    if (args.verbose && error instanceof Error && error.stack !== undefined) errorLine(error.stack);
    return { exitCode: EXIT_CODES.runFailed, runId, serverPids: pidsOf(environment.host) };
  } finally {
    await environment.close();
  }
}

/** A process entry: runs a CLI with this process's streams and signals, and sets its exit code. */
export async function runAsProcess(
  runCliOf: (argv: readonly string[], io: CliIo) => Promise<CliRunOutcome>,
): Promise<void> {
  const outcome = await runCliOf(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    handleSignals: true,
  });
  process.exitCode = outcome.exitCode;
}
