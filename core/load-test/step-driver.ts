import { describeError } from '../contracts/index.js';
import { type PayloadDraw, PayloadMix } from './payload-mix.js';
import type { Clock, InvokeOutcome, InvokeRequest, InvokeTransport } from './ports.js';
import type { StepRecorder, Unanswered } from './step-recorder.js';
import type { StreamStepRecorder } from './streaming/step-recorder.js';

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

/** An invocation's outcome, with the index of the payload it sent when the run has a mix. */
export type DrivenOutcome = InvokeOutcome & { readonly payload?: number };

export interface StepDriverOptions {
  readonly clock: Clock;
  readonly transport: InvokeTransport;
  /** One request sent by every invocation, or a mix each invocation draws from. */
  readonly request: InvokeRequest | PayloadMix;
  /** Seeds the step's draws from a mix (`payloadSeed(workerIndex, stepIndex)`). @default 0 */
  readonly payloadSeed?: number;
  readonly recorder: StepRecorder;
  /** Streaming mode: the step's TTFT, ITL and tokens, fed from each outcome's timing. */
  readonly stream?: StreamStepRecorder;
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
  /** Streaming mode: the step's TTFT, ITL and tokens so far (the progress events read them). */
  readonly stream: StreamStepRecorder | undefined;
  inFlight = 0;
  private readonly transport: InvokeTransport;
  private readonly payloads: PayloadMix;
  private readonly draw: PayloadDraw;
  private readonly budget: RequestBudget;

  constructor(options: StepDriverOptions) {
    this.clock = options.clock;
    this.transport = options.transport;
    this.payloads =
      options.request instanceof PayloadMix ? options.request : PayloadMix.single(options.request);
    this.draw = this.payloads.draw(options.payloadSeed ?? 0);
    this.recorder = options.recorder;
    this.budget = options.budget;
    this.signal = options.signal;
    this.stream = options.stream;
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
    recorder.offer(startUs);
    return 'measured';
  }

  /**
   * One invocation with the payload drawn for it; a transport that throws is counted as a client
   * error, not a crash. With a mix, the outcome carries the payload's index for `settle`.
   *
   * Not an async function: at tens of thousands of requests per second, an async wrapper's own
   * promise and suspended frame around the transport's promise were the engine's largest
   * allocation per request (bench/RESULTS.md, run D). One `then` with handlers made once per step
   * does the same for a single payload; a mix's handlers carry the payload's index.
   */
  invoke(): Promise<DrivenOutcome> {
    const payload = this.draw.next();
    // Only the first request after none were in flight starts a silence: one clock read then.
    if (this.inFlight === 0) this.recorder.silence.sent(this.clock.nowUs(), 0);
    this.inFlight++;
    let sent: Promise<InvokeOutcome>;
    try {
      sent = this.transport.invoke(this.draw.request(payload), this.signal);
    } catch (error) {
      const outcome = this.failed(error);
      return Promise.resolve(this.payloads.size === 1 ? outcome : { ...outcome, payload });
    }
    if (this.payloads.size === 1) return sent.then(this.settled, this.failed);
    return sent.then(
      (outcome) => ({ ...this.settled(outcome), payload }),
      (error: unknown) => ({ ...this.failed(error), payload }),
    );
  }

  private readonly settled = (outcome: InvokeOutcome): InvokeOutcome => {
    this.inFlight--;
    return outcome;
  };

  private readonly failed = (error: unknown): InvokeOutcome => {
    this.inFlight--;
    return {
      kind: 'client-error',
      message: `the transport threw instead of classifying: ${describeError(error)}`,
    };
  };

  /**
   * Records a settled request, started (or scheduled) at `startUs`, settled at `endUs`. One that
   * got no answer (a timeout, or cut short with the step) is counted as an error and recorded as a
   * latency too, at what it is known to be at least (step-recorder.ts `Unanswered`).
   */
  settle(startUs: number, endUs: number, outcome: DrivenOutcome, measured: boolean): void {
    const payload = outcome.payload;
    // An answer is a response, good or bad; a timeout or a request cut short is none.
    const answer = outcome.kind === 'ok' || (outcome.kind !== 'timeout' && !this.signal.aborted);
    this.recorder.silence.settled(endUs, this.inFlight, answer);
    if (outcome.kind === 'ok') {
      this.recorder.recordOk(startUs, endUs, measured, payload);
      if (measured) this.stream?.record(startUs, outcome);
      return;
    }
    if (this.signal.aborted) {
      const reason: unknown = this.signal.reason;
      this.recorder.recordError(
        'timeout',
        undefined,
        `not settled when the step was cut short (${typeof reason === 'string' ? reason : 'aborted'})`,
        measured,
        payload,
        startUs,
      );
      if (measured) this.unanswered({ startUs, endUs, cause: 'cut' }, outcome);
      return;
    }
    this.recorder.recordError(outcome.kind, outcome.statusCode, outcome.message, measured, payload, startUs);
    if (measured && outcome.kind === 'timeout')
      this.unanswered({ startUs, endUs, cause: 'timeout' }, outcome);
  }

  /** A measured request without an answer: its latency, and in streaming mode its TTFT. */
  private unanswered(request: Unanswered, outcome: DrivenOutcome): void {
    const latencyUs = this.recorder.recordUnanswered(request, outcome.payload);
    this.stream?.recordUnanswered(request.startUs, latencyUs, outcome);
  }

  /** Whether the run's request budget ran out during this step. */
  get budgetExhausted(): boolean {
    return this.budget.exhausted;
  }
}
