import { describe, expect, it } from '@jest/globals';
import { systemClock } from '../../../core/load-test/clock.js';

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
