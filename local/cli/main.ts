/**
 * `npm start`: runs an optimization input locally, end to end, over the synthesized state machine
 * and the local adapters, with live progress and a summary. `local/cli.ts` is the process entry;
 * tests call `runCli` in-process.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import {
  BudgetExceededError,
  ErrorNames,
  type InputIssue,
  InvalidRunInputError,
  type NoRecommendationCause,
  OPTIMIZATION_STEPS,
  type RunPlan,
  type RunSummary,
  proofStatusOf,
  recordOf,
  isRecord,
} from '../../core/contracts/index.js';
import { checkedAsyncRunInputSchema } from '../../core/planning/index.js';
import type { Report } from '../../core/report/index.js';
import { validateAndPlan } from '../../core/steps/optimization/validate-and-plan.js';
import {
  createLocalEnvironment,
  LOCAL_ARTIFACTS_BUCKET,
  type LocalEnvironment,
  type LocalRunOutcome,
  runLocalOptimization,
} from '../environment/index.js';
import { USAGE } from './args.js';
import type { JsonValue } from '../runner/index.js';
import { seedExampleObjects } from './example-objects.js';
import { localModeIssues, withLocalDefaults } from './local-input.js';
import {
  calibrateSla,
  LOCAL_CALIBRATION_FIELD,
  type LocalCalibration,
  takeLocalCalibration,
  timeReferenceInference,
} from './calibration.js';
import { MachineLoadMonitor, reportMachineLoad } from '../platform/index.js';
import { readStoredReport, writeStoredReport, formatPlan } from '../../core/report/index.js';
import { ProgressReporter } from './progress.js';
import { displayPath } from './shared.js';
import { formatSummary, type ServerSettings } from './summary.js';
import { type CliIo, type CliRunOutcome, runWorkflowCli, type WorkflowCli } from './workflow-cli.js';

export type { CliIo } from './workflow-cli.js';

interface ReportFiles {
  readonly reportFiles: { readonly json: string; readonly markdown: string; readonly html: string };
}

export interface CliOutcome extends CliRunOutcome {
  /** Files of report.json, report.md and report.html, when the run succeeded. */
  readonly reportFiles?: ReportFiles['reportFiles'];
}

export { defaultRunId, EXIT_CODES } from './shared.js';

/** What `prepare` hands the run: the plan, and the input as it runs (its SLA calibrated). */
interface PreparedRun {
  readonly plan: RunPlan;
  readonly input: unknown;
}

/** The optimization workflow's hooks into the local CLI skeleton, for one command line. */
function optimizationCli(): WorkflowCli<
  LocalEnvironment,
  ProgressReporter,
  PreparedRun,
  LocalRunOutcome,
  ReportFiles
> {
  // What the input asked of this machine (`checkInput`), and how busy it was from `prepare` on.
  let calibration: LocalCalibration | undefined;
  let machineLoad: MachineLoadMonitor | undefined;
  return {
    usage: USAGE,
    workflowName: 'optimization',
    // "Recommend" writes it under the run's prefix (core/steps/optimization/recommend.ts), the
    // runs folder locally.
    reportFile: 'report.json',
    stateMachine: (workflows) => workflows.optimization,
    deleted: 'every endpoint was deleted',
    // Local-mode issues come with the schema's, once the example objects exist (`prepare`).
    checkInput: (document) => {
      // An async input (examples/local-async.json) would fail field by field here: name its CLI instead.
      if (checkedAsyncRunInputSchema.safeParse(document).success) {
        return {
          input: document,
          issues: [
            {
              field: '(input)',
              given: 'an async-inference run input',
              expected:
                'an optimization run input; run or plan an async input with npm run start:async -- --input FILE [--plan]',
            },
          ],
        };
      }
      const taken = takeLocalCalibration(document);
      calibration = taken.calibration;
      return { input: withLocalDefaults(taken.input), issues: taken.issues };
    },
    createReporter: ({ output, elapsedMs, environment }) =>
      new ProgressReporter({
        output,
        elapsedMs,
        serverOf: (endpointName) => {
          const created = environment();
          return created === undefined ? undefined : serverInfo(created, endpointName);
        },
      }),
    createEnvironment: ({ storeDir, runsDir, writesInMemory, logger, reporter }) =>
      createLocalEnvironment({
        storeDir,
        runsDir,
        writesInMemory,
        logger,
        onLoadProgress: (event) => {
          reporter.onLoadProgress(event);
        },
      }),
    async prepare({ input, environment, reporter, cwd, runId, args, refuse, errorLine, io }) {
      for (const uri of await seedExampleObjects(environment.store, input)) {
        reporter.line(
          `Wrote the example ${uri.endsWith('.onnx') ? 'model' : 'payload'} to ${displayPath(cwd, environment.store.pathOf(uri))}`,
        );
      }
      machineLoad = new MachineLoadMonitor(io.sampleMachineLoad);
      const planOf = (document: unknown): Promise<RunPlan | undefined> =>
        precheck(document, refuse, errorLine, () =>
          validateAndPlan(
            { runId, input: document },
            {
              store: environment.store,
              artifactsBucket: LOCAL_ARTIFACTS_BUCKET,
              allowFileUris: true,
              logger: { info: () => undefined, warn: () => undefined, error: () => undefined },
            },
          ),
        );
      // The input as written is checked first: calibration only ever raises a valid SLA.
      const written = await planOf(input);
      if (written === undefined) return undefined;
      const runInput = await calibratedInput(input, calibration, environment, (line) => {
        reporter.line(line);
      });
      const plan = runInput === input ? written : await planOf(runInput);
      if (plan === undefined) return undefined;
      reporter.line(
        `Run ${runId}: ${plan.candidates.length} candidate(s) on this machine (${availableParallelism()} cores, load average ${machineLoad.loadBefore.toFixed(1)}), reports in ${displayPath(cwd, resolve(cwd, args.runsDir, runId))}`,
      );
      return { plan, input: runInput };
    },
    async plan({ input, environment, runId, args, refuse, errorLine }) {
      await seedExampleObjects(environment.store, input);
      // The first state's own handler, over the local adapters it runs on in a run.
      const planState = environment.handlers[OPTIMIZATION_STEPS.validateAndPlan];
      if (planState === undefined)
        throw new TypeError('The local environment has no validate-and-plan handler');
      const plan = await precheck(
        input,
        refuse,
        errorLine,
        async () => (await planState({ runId, input }, new AbortController().signal)) as RunPlan,
      );
      if (plan === undefined) return undefined;
      const text = formatPlan({
        plan,
        runCommand: `npm start -- --input ${args.inputPath ?? 'FILE'}`,
        local: true,
      });
      return {
        json: { plan } as unknown as JsonValue,
        text:
          calibration === undefined
            ? text
            : `${text}\nThe SLA above is as written: ${LOCAL_CALIBRATION_FIELD} raises it at run time to ${calibration.slaTimesReferenceP95} × this machine's reference inference p95 when that is higher.\n`,
      };
    },
    run: ({ environment }, execution) =>
      runLocalOptimization({
        environment,
        ...execution,
        input: execution.prepared.input as JsonValue,
      }),
    async summarize({ environment, cwd, io }, output, { plan }) {
      const summary = output as unknown as RunSummary;
      const reportFiles = {
        json: environment.store.pathOf(summary.report.json),
        markdown: environment.store.pathOf(summary.report.markdown),
        html: environment.store.pathOf(summary.report.html),
      };
      // The machine's load joins the report the workflow wrote: only the CLI saw this machine.
      const stored = await readStoredReport(environment.store, summary.report.json);
      const load = machineLoad?.stop();
      const report: Report =
        load === undefined ? stored : { ...stored, machineLoad: reportMachineLoad(load) };
      if (load !== undefined) await writeStoredReport(environment.store, summary.report, report);
      io.stdout.write(
        formatSummary({
          report,
          servers: serverSettingsByCandidate(environment, plan),
          reportPaths: {
            json: displayPath(cwd, reportFiles.json),
            markdown: displayPath(cwd, reportFiles.markdown),
            html: displayPath(cwd, reportFiles.html),
          },
          availableCpus: availableParallelism(),
        }),
      );
      return { reportFiles };
    },
    outcomeOf: (output) => {
      const outcome = recordOf(output)?.outcome;
      return typeof outcome === 'string' ? outcome : undefined;
    },
    proofOf: proofStatusOf,
    // "No recommendation" ends the execution FAILED, its report written: the cause points to it.
    resultOfFailedRun: ({ error, cause }) => {
      if (error !== ErrorNames.noRecommendation) return undefined;
      try {
        const parsed = JSON.parse(cause) as Partial<NoRecommendationCause>;
        return recordOf(parsed.report) === undefined ? undefined : parsed;
      } catch {
        return undefined;
      }
    },
  };
}

/** `npm start`: the optimization workflow, run locally from its command line. */
export function runCli(argv: readonly string[], io: CliIo): Promise<CliOutcome> {
  return runWorkflowCli(argv, io, optimizationCli());
}

/**
 * The input as it runs on this machine: with `localCalibration`, its SLA raised to the machine's
 * reference (local/cli/calibration.ts), said in one line; as written otherwise.
 */
async function calibratedInput(
  input: unknown,
  calibration: LocalCalibration | undefined,
  environment: LocalEnvironment,
  line: (text: string) => void,
): Promise<unknown> {
  const model = isRecord(input) && isRecord(input.model) ? input.model : undefined;
  if (calibration === undefined || typeof model?.artifactUri !== 'string' || !isRecord(model.inputShape)) {
    return input;
  }
  const shapes = Object.fromEntries(
    Object.entries(model.inputShape).flatMap(([name, shape]) =>
      Array.isArray(shape) && shape.every((dimension) => typeof dimension === 'number')
        ? [[name, shape]]
        : [],
    ),
  );
  const reference = await timeReferenceInference(await environment.store.getBytes(model.artifactUri), shapes);
  const calibrated = calibrateSla(input, calibration, reference);
  line(calibrated.description);
  return calibrated.input;
}

/**
 * What local mode cannot run, then the first state's own validation and planning (`planRun`),
 * run before the (slow) synthesis so that a wrong input is reported at once, field by field. The
 * state runs it again. `--plan` runs the same, and stops there.
 */
async function precheck(
  input: unknown,
  reportIssues: (issues: readonly InputIssue[]) => void,
  errorLine: (text: string) => void,
  planRun: () => Promise<RunPlan>,
): Promise<RunPlan | undefined> {
  const localIssues = localModeIssues(input);
  if (localIssues.length > 0) {
    reportIssues(localIssues);
    return undefined;
  }
  try {
    return await planRun();
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

function serverInfo(environment: LocalEnvironment, endpointName: string) {
  const server = environment.host.launchedServers().findLast((s) => s.endpointName === endpointName);
  return server === undefined
    ? undefined
    : {
        pid: server.pid,
        // An endpoint of several instances is reached through its local front, not one server.
        url: environment.host.endpointUrl(endpointName) ?? server.url,
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
