import { getEventListeners } from 'node:events';
import { describe, expect, it } from '@jest/globals';
import { systemClock } from '../../../core/load-test/clock.js';
import type { Clock } from '../../../core/load-test/ports.js';
import { VirtualClock } from './support/virtual-clock.js';

describe('systemClock', () => {
  it('never wakes a sleeper before its target', async () => {
    // Arrange
    const targets = [3, 7, 12, 20].map((ms) => systemClock.nowUs() + ms * 1000);

    // Act
    const wokeAt = await Promise.all(
      targets.map(async (targetUs) => {
        await systemClock.sleepUntil(targetUs);
        return systemClock.nowUs();
      }),
    );

    // Assert
    wokeAt.forEach((us, index) => {
      expect(us).toBeGreaterThanOrEqual(targets[index] ?? Infinity);
    });
  });

  it('wakes a sleeper at once when its signal aborts', async () => {
    // Arrange
    const abort = new AbortController();
    const before = systemClock.nowUs();
    setTimeout(() => {
      abort.abort();
    }, 5);

    // Act
    await systemClock.sleepUntil(before + 60_000_000, abort.signal);

    // Assert
    expect(systemClock.nowUs() - before).toBeLessThan(1_000_000);
  });

  it('tells wall-clock time in epoch milliseconds', () => {
    expect(Math.abs(systemClock.epochMs() - Date.now())).toBeLessThanOrEqual(1);
  });
});

// A load test shares one signal across all its waits; listeners left on it make each new wait
// slower (Node's addEventListener walks them all), so a sleep that comes due takes its own off.
describe.each([
  ['systemClock', (): Clock => systemClock],
  ['VirtualClock', (): Clock => new VirtualClock()],
])('%s and the abort signal', (_name, clockOf) => {
  it('takes a sleep’s abort listener off the signal when the sleep comes due', async () => {
    // Arrange
    const clock = clockOf();
    const abort = new AbortController();

    // Act
    await Promise.all([1, 2, 3].map((ms) => clock.sleepUntil(clock.nowUs() + ms * 1000, abort.signal)));

    // Assert
    expect(getEventListeners(abort.signal, 'abort')).toHaveLength(0);
  });
});
