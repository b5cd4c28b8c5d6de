import type { Clock, InvokeOutcome, InvokeTransport } from '../../core/load-test/index.js';

const OK: InvokeOutcome = { kind: 'ok' };

/**
 * A server with `slots` workers of fixed service time, serving requests first come first served:
 * its capacity is exactly slots / service time. Completion times follow the server's own schedule
 * (a slot is free again exactly `serviceUs` after it started), so a late timer never lowers the
 * capacity. `stalls` hold every request that starts serving inside [fromUs, toUs) until toUs.
 */
export class SlotServer implements InvokeTransport {
  readonly started: number[] = [];
  private readonly freeAtUs: number[];

  constructor(
    private readonly clock: Clock,
    slots: number,
    private readonly serviceUs: number,
    private readonly stalls: readonly { fromUs: number; toUs: number }[] = [],
  ) {
    this.freeAtUs = new Array<number>(slots).fill(0);
  }

  async invoke(_request: unknown, signal: AbortSignal): Promise<InvokeOutcome> {
    const arrivedUs = this.clock.nowUs();
    let slot = 0;
    for (let index = 1; index < this.freeAtUs.length; index++) {
      if ((this.freeAtUs[index] ?? 0) < (this.freeAtUs[slot] ?? 0)) slot = index;
    }
    let startUs = Math.max(arrivedUs, this.freeAtUs[slot] ?? 0);
    for (const stall of this.stalls) {
      if (startUs >= stall.fromUs && startUs < stall.toUs) startUs = stall.toUs;
    }
    this.started.push(startUs);
    const doneUs = startUs + this.serviceUs;
    this.freeAtUs[slot] = doneUs;
    await this.clock.sleepUntil(doneUs, signal);
    return signal.aborted ? { kind: 'timeout', message: 'aborted' } : OK;
  }
}

/** Answers each call after a delay and with an outcome chosen by the call's number (from 0). */
export class ScriptedTransport implements InvokeTransport {
  calls = 0;

  constructor(
    private readonly clock: Clock,
    private readonly script: (call: number) => { latencyUs: number; outcome?: InvokeOutcome },
  ) {}

  async invoke(_request: unknown, signal: AbortSignal): Promise<InvokeOutcome> {
    const { latencyUs, outcome } = this.script(this.calls++);
    await this.clock.sleepUntil(this.clock.nowUs() + latencyUs, signal);
    if (signal.aborted) return { kind: 'timeout', message: 'aborted' };
    return outcome ?? OK;
  }
}

/**
 * A server that stops answering, as a stopped (or hung) model server does: each request takes
 * `serviceUs`, except that one not done by `stop.fromUs` gets no answer until `stop.toUs` (then
 * `serviceUs` more), or never when the server does not come back. A request without an answer
 * settles as `timeout` once `requestTimeoutUs` has passed since it was sent, as the transports'
 * contract requires (ports.ts), or at once when the step's signal aborts.
 */
export class StoppingServer implements InvokeTransport {
  readonly sentUs: number[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly serviceUs: number,
    private readonly stop: { readonly fromUs: number; readonly toUs?: number },
    private readonly requestTimeoutUs: number,
  ) {}

  async invoke(_request: unknown, signal: AbortSignal): Promise<InvokeOutcome> {
    const sentUs = this.clock.nowUs();
    this.sentUs.push(sentUs);
    const resumeUs = this.stop.toUs ?? Number.POSITIVE_INFINITY;
    const servedUs = sentUs + this.serviceUs;
    const doneUs = servedUs > this.stop.fromUs && sentUs < resumeUs ? resumeUs + this.serviceUs : servedUs;
    const timeoutUs = sentUs + this.requestTimeoutUs;
    await this.clock.sleepUntil(Math.min(doneUs, timeoutUs), signal);
    if (signal.aborted) return { kind: 'timeout', message: 'aborted' };
    if (doneUs > timeoutUs) {
      return { kind: 'timeout', message: `no complete response within ${this.requestTimeoutUs / 1000} ms` };
    }
    return OK;
  }
}
