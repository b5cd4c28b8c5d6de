/**
 * Live progress of a local run, one readable line per event: which state runs, each candidate's
 * step, requests/s and p95 as they are measured. Plain lines when piped; on a terminal the live
 * load figures of a step overwrite each other on one line.
 */
import {
  CandidateStatuses,
  CompilationOutcomes,
  OptimizationStates,
  failureReasonOf,
} from '../../core/contracts/index.js';
import type { LoadTestProgress } from '../../core/load-test/index.js';
import type { RunnerEvent } from '../runner/index.js';

export interface ProgressOutput {
  readonly write: (text: string) => void;
  /** A terminal: live figures may be redrawn in place. */
  readonly isTTY: boolean;
}

/** What the reporter learns about a candidate's model server, to say where it listens. */
export interface ServerInfo {
  readonly pid: number | undefined;
  readonly url: string | undefined;
  readonly workers: number;
  readonly intraOpThreads: number;
}

export interface ProgressReporterOptions {
  readonly output: ProgressOutput;
  /** Milliseconds since the run started. */
  readonly elapsedMs: () => number;
  readonly serverOf?: (endpointName: string) => ServerInfo | undefined;
}

/** Measure-phase figures are printed at most this often per candidate when not on a terminal. */
const PIPED_LOAD_INTERVAL_MS = 2000;

const BENCHMARK = OptimizationStates.benchmarkEachCandidate;
const COMPILE = OptimizationStates.compileEachTarget;
const REPEAT = OptimizationStates.repeatEachCandidate;
/** The proof phase's prefix: "Prove the target" (its Choice's name without the question mark). */
const PROVE = 'Prove the target';
/** The ramp phase's prefix: "Ramp test" (its Choice's name without the question mark). */
const RAMP = 'Ramp test';

/** States announced by name when entered. */
const ANNOUNCED_STATES: ReadonlySet<string> = new Set([
  OptimizationStates.validateAndPlan,
  OptimizationStates.packageModel,
  OptimizationStates.recommend,
  OptimizationStates.cleanUpRunResources,
  OptimizationStates.cleanUpAfterFailure,
]);

type LoadEvent = LoadTestProgress & { readonly candidateId: string };

/**
 * What the progress output of both local CLIs shares: permanent lines stamped with the elapsed
 * time, one live line redrawn in place on a terminal (a permanent line replaces it), and the
 * runner's events: state entries and exits go to the workflow's reporter, the run's end is one line.
 */
export abstract class ProgressLines {
  private liveShown = false;

  protected constructor(
    private readonly output: ProgressOutput,
    private readonly elapsed: () => number,
  ) {}

  /** A permanent line, prefixed with the elapsed time. */
  line(text: string): void {
    const clear = this.liveShown ? '\r\x1b[K' : '';
    this.liveShown = false;
    this.output.write(`${clear}${this.stamp()} ${text}\n`);
  }

  onRunnerEvent(event: RunnerEvent): void {
    switch (event.type) {
      case 'StateEntered':
        this.onStateEntered(event.stateName, event.input);
        return;
      case 'StateExited':
        this.onStateExited(event.stateName, event.output);
        return;
      default: {
        const line = runLine(event);
        if (line !== undefined) this.line(line);
      }
    }
  }

  protected abstract onStateEntered(stateName: string, input: unknown): void;

  protected abstract onStateExited(stateName: string, output: unknown): void;

  /** A terminal: live figures may be redrawn in place. */
  protected get isTTY(): boolean {
    return this.output.isTTY;
  }

  /** Milliseconds since the run started. */
  protected elapsedMs(): number {
    return this.elapsed();
  }

  /** Draws the live line in place of the previous one (on a terminal). */
  protected liveLine(text: string): void {
    this.liveShown = true;
    this.output.write(`\r\x1b[K${this.stamp()} ${text}`);
  }

  private stamp(): string {
    return `[${(this.elapsed() / 1000).toFixed(1).padStart(6)}s]`;
  }
}

export class ProgressReporter extends ProgressLines {
  private stepCount: number | undefined;
  private loadKind: 'closed' | 'open' = 'closed';
  private readonly lastLoadLine = new Map<string, { key: string; atMs: number }>();
  /** The round (knee probe or repeat) each candidate's workers run now, for its progress lines. */
  private readonly rounds = new Map<string, string>();
  /** Candidates whose workers run an interleaved repeat now ("Repeat each candidate"). */
  private readonly repeating = new Set<string>();
  /** The proof's candidate ids ("Prove the target"): one open-model step, whatever the plan's model. */
  private readonly proofs = new Set<string>();
  /** The ramp's candidate ids ("Ramp test"): one open-model ramp step. */
  private readonly ramps = new Set<string>();

  constructor(private readonly options: ProgressReporterOptions) {
    super(options.output, options.elapsedMs);
  }

  onLoadProgress(event: LoadEvent): void {
    // Several workers report the same step: the first speaks for the candidate.
    if (event.workerIndex !== 0) return;
    const round = this.rounds.get(event.candidateId);
    const proof = this.proofs.has(event.candidateId);
    const ramp = this.ramps.has(event.candidateId);
    const step = ramp
      ? `ramp (to ${event.load} req/s)`
      : proof
        ? `proof step (${event.load} req/s offered)`
        : `${round ?? `step ${event.stepIndex + 1}/${this.stepCount ?? '?'}`} (${this.describeLoad(event.load)})`;
    const latency =
      event.stream === undefined
        ? `p95 ${formatMs(event.p95Ms)}`
        : `TTFT p95 ${formatMs(event.stream.ttftP95Ms)}, ITL p95 ${formatMs(event.stream.itlP95Ms)}, ${formatRate(event.stream.outputTokensPerSecond)} tokens/s`;
    const figures = `${formatRate(event.tps)} req/s, ${latency}${event.errors > 0 ? `, ${event.errors} errors` : ''}`;
    const phase = ramp ? RAMP : proof ? PROVE : this.repeating.has(event.candidateId) ? REPEAT : BENCHMARK;
    const prefix = `${phase} › ${event.candidateId}:`;
    const key = `${round ?? event.stepIndex}:${event.phase}`;
    const last = this.lastLoadLine.get(event.candidateId);
    const now = this.elapsedMs();
    if (event.phase === 'warmup') {
      if (last?.key !== key) this.line(`${prefix} ${step} warming up`);
    } else if (event.phase === 'drain') {
      if (last?.key !== key) this.line(`${prefix} ${step} done: ${figures}`);
    } else if (event.requests === 0 || event.p95Ms <= 0) {
      // The first tick of a window can come before any response: nothing to show yet.
      return;
    } else if (this.isTTY) {
      this.liveLine(`${prefix} ${step} ${figures}`);
    } else if (last?.key !== key || now - last.atMs >= PIPED_LOAD_INTERVAL_MS) {
      this.line(`${prefix} ${step} ${figures}`);
    } else {
      return;
    }
    if (last?.key !== key || event.phase === 'measure')
      this.lastLoadLine.set(event.candidateId, { key, atMs: now });
  }

  protected onStateEntered(stateName: string, input: unknown): void {
    if (ANNOUNCED_STATES.has(stateName)) {
      this.line(stateName);
      return;
    }
    const candidateId = text(field(input, 'candidate', 'id'));
    switch (stateName) {
      case OptimizationStates.startCompilation:
        this.line(`${COMPILE} › ${text(field(input, 'compilation', 'target')) ?? '?'}: compiling`);
        return;
      case OptimizationStates.deployCandidate: {
        const instanceType = text(field(input, 'candidate', 'instanceType')) ?? 'serverless';
        const compiledFor = text(field(input, 'candidate', 'compiledFor'));
        const optimizedBy = text(field(input, 'candidate', 'optimizedBy'));
        const served =
          compiledFor !== undefined
            ? `compiled for ${compiledFor}`
            : optimizedBy === undefined
              ? 'uncompiled'
              : `optimized by ${optimizedBy}`;
        const environment = field(input, 'candidate', 'environment');
        const settings =
          typeof environment === 'object' && environment !== null && Object.keys(environment).length > 0
            ? ` ${JSON.stringify(environment)}`
            : '';
        this.line(`${BENCHMARK} › ${candidateId ?? '?'}: deploying ${instanceType}, ${served}${settings}`);
        return;
      }
      case OptimizationStates.deployProofEndpoint: {
        const id = candidateId ?? '?';
        this.proofs.add(id);
        const count = field(input, 'candidate', 'initialInstanceCount');
        const instanceType = text(field(input, 'candidate', 'instanceType')) ?? '?';
        this.line(`${PROVE} › ${id}: deploying ${typeof count === 'number' ? count : '?'} × ${instanceType}`);
        return;
      }
      case OptimizationStates.deleteProofEndpoint:
      case OptimizationStates.deleteFailedProofEndpoint:
        this.line(`${PROVE} › ${candidateId ?? '?'}: deleting its endpoint`);
        return;
      case OptimizationStates.deployRampEndpoint: {
        const id = candidateId ?? '?';
        this.ramps.add(id);
        const count = field(input, 'candidate', 'initialInstanceCount');
        const instanceType = text(field(input, 'candidate', 'instanceType')) ?? '?';
        this.line(
          `${RAMP} › ${id}: deploying ${typeof count === 'number' ? count : '?'} × ${instanceType} (the policy's minimum)`,
        );
        return;
      }
      case OptimizationStates.runRampLoadWorkers: {
        // Entered once the policy is attached (a failed apply goes to the failure path instead);
        // again for each further segment, which says nothing new.
        if (field(input, 'deployment', 'loadSegment') !== undefined) return;
        const min = field(input, 'summary', 'rampRequest', 'minInstances');
        const max = field(input, 'summary', 'rampRequest', 'maxInstances');
        const from = field(input, 'summary', 'rampRequest', 'fromTps');
        const to = field(input, 'summary', 'rampRequest', 'toTps');
        const seconds = field(input, 'plan', 'loadPlan', 'stepDurationSeconds');
        this.line(
          `${RAMP} › ${candidateId ?? '?'}: scaling policy attached (${String(min)}–${String(max)} instances); ramping ${String(from)} → ${String(to)} req/s over ${String(seconds)} s`,
        );
        return;
      }
      case OptimizationStates.deregisterRampScaling:
      case OptimizationStates.deregisterFailedRampScaling:
        this.line(`${RAMP} › ${candidateId ?? '?'}: deregistering its scaling, then deleting its endpoint`);
        return;
      case OptimizationStates.deleteCandidateEndpoint:
      case OptimizationStates.deleteFailedCandidateEndpoint:
        this.line(`${BENCHMARK} › ${candidateId ?? '?'}: deleting its endpoint`);
        return;
      case OptimizationStates.repeatEachCandidate: {
        const round = field(input, 'repeatRound', 'count');
        const repeats = field(input, 'plan', 'loadPlan', 'repeats');
        this.line(
          `${REPEAT}: round ${typeof round === 'number' ? round : '?'} of ${typeof repeats === 'number' ? repeats - 1 : '?'}, each kept endpoint measured once more`,
        );
        return;
      }
      case OptimizationStates.runRepeatLoadWorkers: {
        const id = candidateId ?? '?';
        const index = field(input, 'deployment', 'loadRound', 'index');
        this.repeating.add(id);
        this.rounds.set(id, `round ${typeof index === 'number' ? index + 1 : '?'}, repeat`);
        return;
      }
      case OptimizationStates.recordFailedRepeat: {
        const error = field(input, 'repeatFailure', 'repeatError');
        this.line(
          `${REPEAT} › ${candidateId ?? '?'}: repeat failed: ${failureReasonOf(isErrorRecord(error) ? error : undefined)}; the figures before it stand`,
        );
        return;
      }
      case OptimizationStates.deleteRepeatedEndpoint:
        this.line(`${REPEAT} › ${candidateId ?? '?'}: deleting its endpoint`);
        return;
      case OptimizationStates.recordFailedCandidate: {
        const error = field(input, 'error');
        this.line(
          `${BENCHMARK} › ${candidateId ?? '?'}: failed: ${failureReasonOf(isErrorRecord(error) ? error : undefined)}`,
        );
        return;
      }
      case OptimizationStates.recordCompilationFailure: {
        const error = field(input, 'error');
        this.line(
          `${COMPILE} › ${text(field(input, 'compilation', 'target')) ?? '?'}: failed: ${failureReasonOf(isErrorRecord(error) ? error : undefined)}`,
        );
        return;
      }
      default:
        return;
    }
  }

  protected onStateExited(stateName: string, output: unknown): void {
    switch (stateName) {
      case OptimizationStates.validateAndPlan:
        this.onPlanned(field(output, 'plan'));
        return;
      case OptimizationStates.checkCompilation: {
        const target = text(field(output, 'job', 'target')) ?? '?';
        const status = text(field(output, 'job', 'status'));
        if (status === CompilationOutcomes.completed) {
          const note = text(field(output, 'job', 'note'));
          this.line(`${COMPILE} › ${target}: compiled${note === undefined ? '' : ` (${note})`}`);
        } else if (status === CompilationOutcomes.failed) {
          this.line(`${COMPILE} › ${target}: failed: ${text(field(output, 'job', 'failureReason')) ?? '?'}`);
        }
        return;
      }
      case OptimizationStates.deployCandidate:
        if (text(field(output, 'deployment', 'status')) === CandidateStatuses.skipped) {
          this.line(
            `${BENCHMARK} › ${text(field(output, 'candidate', 'id')) ?? '?'}: skipped: ${text(field(output, 'deployment', 'skipReason')) ?? '?'}`,
          );
        }
        return;
      case OptimizationStates.checkEndpoint:
      case OptimizationStates.checkProofEndpoint:
      case OptimizationStates.checkRampEndpoint:
        if (text(field(output, 'deployment', 'status')) === CandidateStatuses.inService) {
          this.onInService(
            output,
            stateName === OptimizationStates.checkProofEndpoint
              ? PROVE
              : stateName === OptimizationStates.checkRampEndpoint
                ? RAMP
                : BENCHMARK,
          );
        }
        return;
      case OptimizationStates.recordProof:
      case OptimizationStates.recordFailedProof:
        this.line(
          `${PROVE} › ${text(field(output, 'candidate', 'id')) ?? '?'}: ${text(field(output, 'summary', 'proof', 'note')) ?? '?'}`,
        );
        return;
      case OptimizationStates.recordRamp:
      case OptimizationStates.recordFailedRamp:
        this.line(
          `${RAMP} › ${text(field(output, 'candidate', 'id')) ?? '?'}: ${text(field(output, 'summary', 'ramp', 'note')) ?? '?'}`,
        );
        return;
      case OptimizationStates.aggregateLoadTest: {
        const candidateId = text(field(output, 'candidate', 'id')) ?? '?';
        const status = text(field(output, 'outcome', 'status'));
        // More of the load test follows: a segment (its steps speak), or a round, named here.
        if (status === CandidateStatuses.nextSegment) return;
        if (status === CandidateStatuses.nextRound) {
          const kind = text(field(output, 'outcome', 'nextRound', 'kind'));
          const index = field(output, 'outcome', 'nextRound', 'index');
          const round = `round ${typeof index === 'number' ? index + 1 : '?'}, ${kind === 'knee' ? 'knee probe' : 'repeat'}`;
          this.rounds.set(candidateId, round);
          return;
        }
        this.rounds.delete(candidateId);
        const tps = field(output, 'outcome', 'sustainableTps');
        const kept =
          status === CandidateStatuses.repeatsPending
            ? '; endpoint kept for its repeats, interleaved with the other candidates'
            : '';
        this.line(
          `${BENCHMARK} › ${candidateId}: measured, ${typeof tps === 'number' ? `${formatRate(tps)} req/s sustained within the SLA` : 'no step met the SLA'}${kept}`,
        );
        return;
      }
      case OptimizationStates.aggregateRepeat: {
        const candidateId = text(field(output, 'candidate', 'id')) ?? '?';
        this.rounds.delete(candidateId);
        this.repeating.delete(candidateId);
        if (text(field(output, 'outcome', 'status')) === CandidateStatuses.repeatsPending) return;
        const tps = field(output, 'outcome', 'sustainableTps');
        this.line(
          `${REPEAT} › ${candidateId}: repeats done, ${typeof tps === 'number' ? `${formatRate(tps)} req/s sustained within the SLA (the median)` : 'no measurement met the SLA'}`,
        );
        return;
      }
      default:
        return;
    }
  }

  private onPlanned(plan: unknown): void {
    const steps = field(plan, 'loadPlan', 'steps');
    this.stepCount = Array.isArray(steps) ? steps.length : undefined;
    this.loadKind = text(field(plan, 'loadPlan', 'model')) === 'open' ? 'open' : 'closed';
    const candidates = field(plan, 'candidates');
    const ids = Array.isArray(candidates) ? candidates.map((c) => text(field(c, 'id')) ?? '?') : [];
    const warmup = field(plan, 'loadPlan', 'warmupSeconds');
    const window = field(plan, 'loadPlan', 'stepDurationSeconds');
    this.line(
      `Planned ${ids.length} candidate(s): ${ids.join(', ')}; load steps ${Array.isArray(steps) ? `[${steps.join(', ')}]` : '?'} (${this.loadKind === 'open' ? 'requests/s' : 'concurrency'}), ${String(warmup)} s warm-up + ${String(window)} s each`,
    );
  }

  private onInService(output: unknown, phase: string): void {
    const candidateId = text(field(output, 'candidate', 'id')) ?? '?';
    const endpointName = text(field(output, 'deployment', 'endpointName')) ?? '';
    const server = this.options.serverOf?.(endpointName);
    const where =
      server === undefined
        ? ''
        : ` at ${server.url ?? '?'} (pid ${server.pid ?? '?'}, ${server.workers} worker(s) × ${server.intraOpThreads} thread(s))`;
    this.line(`${phase} › ${candidateId}: in service${where}`);
  }

  private describeLoad(load: number): string {
    return this.loadKind === 'open' ? `${load} req/s offered` : `concurrency ${load}`;
  }
}

/** The value at `path` inside a state's JSON, or `undefined` when any step is missing. */
export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function isErrorRecord(value: unknown): value is { Error?: string; Cause?: string } {
  return typeof value === 'object' && value !== null;
}

/** Lambda-style causes are JSON `{ errorType, errorMessage }`; others are plain text. */
export function causeMessage(cause: string): string {
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // Plain text.
  }
  return cause;
}

export function formatRate(value: number): string {
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

export function formatMs(value: number): string {
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ms`;
}

/** The line both CLIs print for a retry and for the end of the execution; other events have none. */
export function runLine(event: RunnerEvent): string | undefined {
  switch (event.type) {
    case 'StateRetried':
      return `${event.stateName}: retry ${event.attempt}`;
    case 'ExecutionSucceeded':
      return 'Run succeeded';
    case 'ExecutionFailed':
      return `Run failed: ${event.error}: ${causeMessage(event.cause)}`;
    case 'ExecutionAborted':
      return 'Run aborted';
    case 'ExecutionTimedOut':
      return 'Run timed out';
    default:
      return undefined;
  }
}
