/**
 * `npm start`: runs an optimization input locally, end to end, over the synthesized state machine
 * and the local adapters, with live progress and a summary. `local/cli.ts` is the process entry;
 * tests call `runCli` in-process.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  BudgetExceededError,
  describeError,
  type InputIssue,
  InvalidRunInputError,
} from '../../handlers/contracts/errors.js';
import type { CleanUpAccount } from '../../handlers/contracts/clean-up-account.js';
import type { RunPlan, RunSummary } from '../../handlers/contracts/optimization-state.js';
import type { Report } from '../../handlers/report/report.js';
import { validateAndPlan } from '../../handlers/validate-and-plan.js';
import { createConsoleLogger } from '../adapters/console-logger.js';
import {
  createLocalEnvironment,
  LOCAL_ARTIFACTS_BUCKET,
  type LocalEnvironment,
  type LocalRunOutcome,
  runLocalOptimization,
} from '../local-environment.js';
import type { JsonValue } from '../runner/index.js';
import { type SynthesizedWorkflows, synthesizeWorkflows } from '../synthesized-workflows.js';
import { USAGE } from './args.js';
import { seedExampleObjects } from './example-objects.js';
import { localModeIssues, withLocalDefaults } from './local-input.js';
import { ProgressReporter } from './progress.js';
import { formatSummary, type ServerSettings } from './summary.js';
import {
  displayPath,
  EXIT_CODES,
  interruptedExitCode,
  interruptRun,
  pidsOf,
  reportCleanUpLeftovers,
  reportUnsuccessfulRun,
  startCli,
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
}

export interface CliOutcome {
  readonly exitCode: number;
  readonly runId?: string;
  /** Files of report.json, report.md and report.html, when the run succeeded. */
  readonly reportFiles?: { readonly json: string; readonly markdown: string; readonly html: string };
  /** Every model server process the run started (all stopped when this resolves). */
  readonly serverPids: readonly number[];
}

export { defaultRunId, EXIT_CODES } from './shared.js';

export async function runCli(argv: readonly string[], io: CliIo): Promise<CliOutcome> {
  const started = performance.now();
  const start = await startCli(argv, io, USAGE);
  if (start.kind === 'exit') return { exitCode: start.exitCode, serverPids: [] };
  const { args, runId, inputPath, document, cwd, errorLine } = start;

  const reporter = new ProgressReporter({
    output: { write: (text) => io.stdout.write(text), isTTY: io.stdout.isTTY === true },
    elapsedMs: () => performance.now() - started,
    serverOf: (endpointName) => serverInfo(environment, endpointName),
  });
  const logger = createConsoleLogger({
    write: (line) => {
      reporter.line(line.trimEnd());
    },
    level: args.verbose ? 'info' : 'warn',
  });
  const environment = createLocalEnvironment({
    storeDir: resolve(cwd, args.storeDir),
    runsDir: resolve(cwd, args.runsDir),
    logger,
    onLoadProgress: (event) => {
      reporter.onLoadProgress(event);
    },
  });
  const interrupt = interruptRun(
    io,
    () => {
      environment.host.killAllNow();
    },
    (text) => {
      reporter.line(text);
    },
  );
  try {
    const input = withLocalDefaults(document);
    for (const uri of await seedExampleObjects(environment.store, input)) {
      reporter.line(
        `Wrote the example ${uri.endsWith('.onnx') ? 'model' : 'payload'} to ${displayPath(cwd, environment.store.pathOf(uri))}`,
      );
    }
    const plan = await precheck(
      runId,
      input,
      environment,
      (issues) => {
        errorLine(`Invalid run input in ${displayPath(cwd, inputPath)}:`);
        for (const issue of issues)
          errorLine(`  - ${issue.field}: got ${issue.given}, expected ${issue.expected}`);
      },
      errorLine,
    );
    if (plan === undefined) return { exitCode: EXIT_CODES.invalid, serverPids: [] };

    reporter.line(
      `Run ${runId}: ${plan.candidates.length} candidate(s) on this machine (${availableParallelism()} cores), reports in ${displayPath(cwd, resolve(cwd, args.runsDir, runId))}`,
    );
    const workflows = io.workflows ?? synthesizeOnce(reporter);
    if (interrupt.signal.aborted) {
      errorLine('Interrupted before the run started: nothing was created.');
      return { exitCode: interruptedExitCode(interrupt.signal), runId, serverPids: [] };
    }
    const outcome = await runLocalOptimization({
      environment,
      stateMachine: workflows.optimization,
      input: input as JsonValue,
      runId,
      signal: interrupt.signal,
      onEvent: (event) => {
        reporter.onRunnerEvent(event);
      },
    });
    await environment.close();
    const serverPids = pidsOf(environment.host);
    return await finish({
      outcome,
      environment,
      plan,
      runId,
      cwd,
      io,
      errorLine,
      serverPids,
      interrupted: interrupt.signal.aborted,
      interruptedExitCode: interruptedExitCode(interrupt.signal),
    });
  } catch (error) {
    errorLine(`Error: ${describeError(error)}`);
    if (args.verbose && error instanceof Error && error.stack !== undefined) errorLine(error.stack);
    return { exitCode: EXIT_CODES.runFailed, runId, serverPids: pidsOf(environment.host) };
  } finally {
    interrupt.release();
    await environment.close();
  }
}

async function finish(context: {
  readonly outcome: LocalRunOutcome;
  readonly environment: LocalEnvironment;
  readonly plan: RunPlan;
  readonly runId: string;
  readonly cwd: string;
  readonly io: CliIo;
  readonly errorLine: (text: string) => void;
  readonly serverPids: readonly number[];
  readonly interrupted: boolean;
  readonly interruptedExitCode: number;
}): Promise<CliOutcome> {
  const { outcome, environment, runId, errorLine, serverPids } = context;
  const { result } = outcome;
  if (result.status !== 'SUCCEEDED') {
    const exitCode = reportUnsuccessfulRun({
      result,
      cleanUp: outcome.cleanUp,
      deleted: 'every endpoint was deleted',
      runId,
      interrupted: context.interrupted,
      interruptedExitCode: context.interruptedExitCode,
      errorLine,
    });
    return { exitCode, runId, serverPids };
  }
  const summary = result.output as unknown as RunSummary & { readonly cleanUp?: CleanUpAccount };
  const reportFiles = {
    json: environment.store.pathOf(summary.report.json),
    markdown: environment.store.pathOf(summary.report.markdown),
    html: environment.store.pathOf(summary.report.html),
  };
  const report = JSON.parse(
    new TextDecoder().decode(await environment.store.getBytes(summary.report.json)),
  ) as Report;
  context.io.stdout.write(
    formatSummary({
      report,
      servers: serverSettingsByCandidate(environment, context.plan),
      reportPaths: {
        json: displayPath(context.cwd, reportFiles.json),
        markdown: displayPath(context.cwd, reportFiles.markdown),
        html: displayPath(context.cwd, reportFiles.html),
      },
      availableCpus: availableParallelism(),
    }),
  );
  reportCleanUpLeftovers(summary.cleanUp, errorLine);
  return { exitCode: EXIT_CODES.ok, runId, reportFiles, serverPids };
}

/**
 * The first state's own validation, run before the (slow) synthesis so that a wrong input is
 * reported at once, field by field, plus what local mode cannot run. The state runs it again.
 */
async function precheck(
  runId: string,
  input: unknown,
  environment: LocalEnvironment,
  reportIssues: (issues: readonly InputIssue[]) => void,
  errorLine: (text: string) => void,
): Promise<RunPlan | undefined> {
  const localIssues = localModeIssues(input);
  if (localIssues.length > 0) {
    reportIssues(localIssues);
    return undefined;
  }
  try {
    return await validateAndPlan(
      { runId, input },
      {
        store: environment.store,
        artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
        allowFileUris: true,
        logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
      },
    );
  } catch (error) {
    if (error instanceof InvalidRunInputError) {
      reportIssues(error.issues);
      return undefined;
    }
    if (error instanceof BudgetExceededError) {
      errorLine(error.message);
      return undefined;
    }
    throw error;
  }
}

function synthesizeOnce(reporter: ProgressReporter): SynthesizedWorkflows {
  reporter.line('Synthesizing the CDK stack in-process to get the optimization state machine…');
  const workflows = synthesizeWorkflows();
  reporter.line(`Synthesized ${workflows.optimization.name}`);
  return workflows;
}

function serverInfo(environment: LocalEnvironment, endpointName: string) {
  const server = environment.host.launchedServers().findLast((s) => s.endpointName === endpointName);
  return server === undefined
    ? undefined
    : {
        pid: server.pid,
        url: server.url,
        workers: server.cpu.workers,
        intraOpThreads: server.cpu.intraOpThreads,
      };
}

function serverSettingsByCandidate(
  environment: LocalEnvironment,
  plan: RunPlan,
): Map<string, ServerSettings> {
  const settings = new Map<string, ServerSettings>();
  for (const candidate of plan.candidates) {
    const server = environment.host
      .launchedServers()
      .findLast((s) => s.endpointName === candidate.endpointName);
    if (server === undefined) continue;
    settings.set(candidate.id, {
      workers: server.cpu.workers,
      intraOpThreads: server.cpu.intraOpThreads,
      capped: server.cpu.capped,
    });
  }
  return settings;
}
