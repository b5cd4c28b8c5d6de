import type { RunLoadWorkerEvent } from '../../core/contracts/optimization-state.js';
import type { Clock } from '../../core/load-test/index.js';
import {
  createStepHandlers,
  type StepDependencies,
  type StepHandler,
} from '../../local/environment/step-handlers.js';
import { VirtualClock } from '../core/load-test/support/virtual-clock.js';

/** The shared start a load worker invocation is given: its round's, else its segment's, else the test's. */
export function sharedStartOf(event: RunLoadWorkerEvent): number | undefined {
  const { deployment } = event;
  return (
    deployment.loadRound?.startEpochMs ?? deployment.loadSegment?.startEpochMs ?? deployment.loadStartEpochMs
  );
}

/** The transports a load worker on simulated time sends through: they answer on its clock. */
export type TransportsOn = (
  clock: Clock,
) => Pick<StepDependencies, 'openTransport'> & Partial<Pick<StepDependencies, 'openStreamTransport'>>;

/**
 * The real "Run load worker" (as `createStepHandlers` wires it) on simulated time: each invocation
 * runs on a VirtualClock of its own that starts at the invocation's shared start (plus `lateMs`,
 * to stand for a worker that starts late, e.g. throttled by Lambda and retried), against
 * transports that answer on that clock. A load window then takes no real time and its figures are
 * a function of the plan and the endpoints' latencies alone: the same requests, steps, rounds and
 * history on every run, however busy the machine. Workers of one load test do not share a clock:
 * a stub endpoint's latency does not depend on the other workers' requests, and a worker that
 * the runner starts a little after another joins on time, as it does on AWS with the start delay.
 */
export function loadWorkerOnSimulatedTime(
  deps: StepDependencies,
  transportsOn: TransportsOn,
  lateMs: (event: RunLoadWorkerEvent) => number = () => 0,
): StepHandler {
  return (payload, signal) => {
    const event = payload as RunLoadWorkerEvent;
    const clock = new VirtualClock((sharedStartOf(event) ?? Date.now()) + lateMs(event));
    const handlers = createStepHandlers({ ...deps, ...transportsOn(clock), clock });
    return handlers['run-load-worker'](payload, signal);
  };
}
