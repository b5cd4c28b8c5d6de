import type { StepDriver } from './step-driver.js';

/**
 * One virtual user of the closed model: sends a request, waits for its answer, sends the next, until
 * the step's window ends. Its latency is measured from the real start: in a closed loop no request
 * is ever scheduled and then held back, so there is no omission to correct.
 */
async function virtualUser(driver: StepDriver): Promise<void> {
  const clock = driver.clock;
  for (;;) {
    const startUs = clock.nowUs();
    const admission = driver.admit(startUs);
    if (admission === 'refused') return;
    const outcome = await driver.invoke();
    driver.settle(startUs, clock.nowUs(), outcome, admission === 'measured');
  }
}

/**
 * Closed model: `users` requests in flight for the whole step. Resolves once the window is over
 * (or a cap or the step signal stopped it) and every request has settled.
 */
export async function runClosedModel(driver: StepDriver, users: number): Promise<void> {
  const loops: Promise<void>[] = [];
  for (let user = 0; user < users; user++) loops.push(virtualUser(driver));
  await Promise.all(loops);
}
