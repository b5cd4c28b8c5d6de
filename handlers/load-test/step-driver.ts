import { describeError } from '../contracts/errors.js';
import type { Clock, InvokeOutcome, InvokeRequest, InvokeTransport } from './ports.js';
import type { StepRecorder } from './step-recorder.js';

/** How a start is counted: before the window (warm-up), in it, or not issued at all. */
export type Admission = 'warmup' | 'measured' | 'refused';

/** The run's request allowance (`maxTotalRequests`, this worker's share); unlimited if absent. */
export class RequestBudget {
  private remaining: number;
  exhausted = false;
  /** Requests taken (and not given back): what a resumed segment no longer has. */
  taken = 0;

  constructor(limit: number | undefined) {
    this.remaining = limit ?? Number.POSITIVE_INFINITY;
  }

  take(): boolean {
    if (this.remaining <= 0) {
      this.exhausted = true;
      return false;
    }
    this.remaining--;
    this.taken++;
    return true;
  }

  giveBack(): void {
    this.remaining++;
    this.taken--;
  }
}

export interface StepDriverOptions {
  readonly clock: Clock;
  readonly transport: InvokeTransport;
  readonly request: InvokeRequest;
  readonly recorder: StepRecorder;
  readonly budget: RequestBudget;
  /** Aborts on deadline or cancellation; passed to every invocation. */
  readonly signal: AbortSignal;
}

/**
 * What both load models share within one step: admission against the window and the caps, the
 * invocation itself, and recording its outcome.
 */
export class StepDriver {
  readonly clock: Clock;
  readonly recorder: StepRecorder;
  readonly signal: AbortSignal;
  inFlight = 0;
  private readonly transport: InvokeTransport;
  private readonly request: InvokeRequest;
  private readonly budget: RequestBudget;

  constructor(options: StepDriverOptions) {
    this.clock = options.clock;
    this.transport = options.transport;
    this.request = options.request;
    this.recorder = options.recorder;
    this.budget = options.budget;
    this.signal = options.signal;
  }

  /**
   * Decides whether a start at `startUs` (closed: now; open: its scheduled time) is issued, and
   * whether it is measured. A request cap reached inside the window ends the window there; nothing
   * starts after the window, or after this invocation's part of it (its segment's end).
   */
  admit(startUs: number): Admission {
    const recorder = this.recorder;
    if (this.signal.aborted || startUs >= Math.min(recorder.activeToUs, recorder.issueEndUs))
      return 'refused';
    if (!this.budget.take()) {
      recorder.closeWindowAt(startUs);
      return 'refused';
    }
    if (startUs < recorder.activeFromUs) return 'warmup';
    if (recorder.measuredStarts >= recorder.window.measuredCap) {
      this.budget.giveBack();
      recorder.closeWindowAt(startUs);
      return 'refused';
    }
    recorder.measuredStarts++;
    return 'measured';
  }

  /** One invocation; a transport that throws is counted as a client error, not a crash. */
  async invoke(): Promise<InvokeOutcome> {
    this.inFlight++;
    try {
      return await this.transport.invoke(this.request, this.signal);
    } catch (error) {
      return {
        kind: 'client-error',
        message: `the transport threw instead of classifying: ${describeError(error)}`,
      };
    } finally {
      this.inFlight--;
    }
  }

  settle(startUs: number, endUs: number, outcome: InvokeOutcome, measured: boolean): void {
    if (outcome.kind === 'ok') {
      this.recorder.recordOk(startUs, endUs, measured);
      return;
    }
    if (this.signal.aborted) {
      const reason: unknown = this.signal.reason;
      this.recorder.recordError(
        'timeout',
        undefined,
        `not settled when the step was cut short (${typeof reason === 'string' ? reason : 'aborted'})`,
        measured,
      );
      return;
    }
    this.recorder.recordError(outcome.kind, outcome.statusCode, outcome.message, measured);
  }

  /** Whether the run's request budget ran out during this step. */
  get budgetExhausted(): boolean {
    return this.budget.exhausted;
  }
}
