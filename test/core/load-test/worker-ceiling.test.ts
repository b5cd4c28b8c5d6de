import { describe, expect, it } from '@jest/globals';
import {
  SIGNED_REQUESTS_PER_CPU_SECOND,
  SIGNED_REQUESTS_PER_WORKER_SECOND,
  workerCeilingWarning,
  workersForArrivalRate,
} from '../../../core/load-test/worker-ceiling.js';
import { MAX_ARRIVAL_RATE, MAX_WORKERS, parseLoadPlan } from '../../../core/contracts/load-plan.js';

const CEILING = SIGNED_REQUESTS_PER_WORKER_SECOND;

describe('load worker ceiling', () => {
  it('gives a 2,048 MB worker the measured rate of one vCPU, not of the 1.16 vCPU its memory buys', () => {
    // Assert: Node runs the engine, the SDK and TLS on one thread.
    expect(SIGNED_REQUESTS_PER_WORKER_SECOND).toBe(SIGNED_REQUESTS_PER_CPU_SECOND);
  });

  it('never needs more workers than a plan may have, at the highest arrival rate a plan may ask', () => {
    // Act
    const workers = workersForArrivalRate(MAX_ARRIVAL_RATE);

    // Assert
    expect(workers).toBeLessThanOrEqual(MAX_WORKERS);
  });

  it('warns when the top open-model step asks more of each worker than it can sign, naming the workers needed', () => {
    // Prepare: the top step is three ceilings over two workers, 1.5 ceilings each.
    const plan = parseLoadPlan({ model: 'open', steps: [CEILING, 3 * CEILING], workers: 2 });

    // Act
    const warning = workerCeilingWarning(plan);

    // Assert
    expect(warning).toBe(
      `loadPlan.workers: the top step of ${3 * CEILING} requests/s is ${Math.round(1.5 * CEILING)} requests/s ` +
        `for each of 2 worker(s), more than the ~${CEILING} signed InvokeEndpoint requests/s one 2048 MB ` +
        'load worker can send on AWS (bench/RESULTS.md, "Signed path"); its own CPU would delay the arrivals ' +
        'and add to the latencies: set loadPlan.workers to at least 3.',
    );
  });

  it('counts the extension steps, which run when every planned step meets the SLA', () => {
    // Prepare: planned steps within the ceiling; extension doubles the last up to 4 × it.
    const plan = parseLoadPlan({
      model: 'open',
      steps: [CEILING / 2],
      extendUntilSaturated: true,
      maxLoad: 2 * CEILING,
    });

    // Act
    const warning = workerCeilingWarning(plan);

    // Assert
    expect(warning).toContain(`the top step of ${2 * CEILING} requests/s`);
    expect(warning).toContain('set loadPlan.workers to at least 2.');
  });

  it('accepts an open-model step of exactly the ceiling per worker', () => {
    // Prepare
    const plan = parseLoadPlan({ model: 'open', steps: [2 * CEILING], workers: 2 });

    // Act / Assert
    expect(workerCeilingWarning(plan)).toBeUndefined();
  });

  it('leaves closed-model plans alone: their rate is what the endpoint answers, not a schedule', () => {
    // Prepare
    const plan = parseLoadPlan({ model: 'closed', steps: [10_000] });

    // Act / Assert
    expect(workerCeilingWarning(plan)).toBeUndefined();
  });
});
