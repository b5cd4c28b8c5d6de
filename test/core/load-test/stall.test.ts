import { describe, expect, it } from '@jest/globals';
import {
  STALL_INTERVAL_MULTIPLE,
  STALL_MIN_SILENCE_MS,
  SilenceTracker,
  describeStallAt,
  longestStall,
  stallThresholdUs,
} from '../../../core/load-test/stall.js';

const WINDOW = { activeFromUs: 1_000_000, activeToUs: 21_000_000 };

describe('stallThresholdUs', () => {
  it('is the floor for an endpoint that answers often', () => {
    expect(stallThresholdUs(12_500, 65_000_000)).toBe(STALL_MIN_SILENCE_MS * 1000);
  });

  it('grows with the interval between answers of a slow model', () => {
    expect(stallThresholdUs(1_000_000, 65_000_000)).toBe(STALL_INTERVAL_MULTIPLE * 1_000_000);
  });

  it('never exceeds the request timeout', () => {
    expect(stallThresholdUs(10_000_000, 65_000_000)).toBe(65_000_000);
  });
});

describe('SilenceTracker', () => {
  /** Answers every `everyUs` in (fromUs, toUs], with a request outstanding after each. */
  function answerEvery(tracker: SilenceTracker, fromUs: number, toUs: number, everyUs: number): void {
    for (let atUs = fromUs + everyUs; atUs <= toUs; atUs += everyUs) tracker.settled(atUs, 1, true);
  }

  it('measures the longest stretch with requests outstanding and no answer', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);
    tracker.sent(1_000_000, 0);

    // Act: answers every 25 ms until 2 s, then none until 19 s.
    answerEvery(tracker, 1_000_000, 2_000_000, 25_000);
    tracker.settled(19_000_000, 1, true);
    tracker.settled(19_025_000, 0, true);

    // Assert
    const silence = { sinceUs: 2_000_000, fromUs: 2_000_000, toUs: 19_000_000 };
    expect(tracker.longestSilence()).toEqual(silence);
    expect(tracker.stall(65_000_000)).toEqual(silence);
  });

  it('does not count time with nothing outstanding as silence', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act: one 10 ms request, 15 s with nothing in flight, another 10 ms request.
    tracker.sent(2_000_000, 0);
    tracker.settled(2_010_000, 0, true);
    tracker.sent(17_000_000, 0);
    tracker.settled(17_010_000, 0, true);

    // Assert
    expect(tracker.longestSilence()).toEqual({ sinceUs: 2_000_000, fromUs: 2_000_000, toUs: 2_010_000 });
  });

  it('goes on through a timeout: a request that timed out got no answer either', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);
    tracker.sent(2_000_000, 0);
    tracker.sent(2_100_000, 1);

    // Act: the first times out at 67 s, the second is answered at 70 s.
    tracker.settled(67_000_000, 1, false);
    tracker.settled(70_000_000, 0, true);

    // Assert
    expect(tracker.longestSilence()).toEqual({ sinceUs: 2_000_000, fromUs: 2_000_000, toUs: 70_000_000 });
  });

  it('judges a silence that began in the warm-up on its whole length, from the window start', () => {
    // Prepare: sent at 0.5 s (warm-up), timed out at 5.5 s; nothing answered, so the floor applies.
    const tracker = new SilenceTracker(WINDOW);
    tracker.sent(500_000, 0);

    // Act
    tracker.settled(5_500_000, 0, false);

    // Assert: 5 s in all, 4.5 s of them in the window.
    expect(tracker.stall(65_000_000)).toEqual({ sinceUs: 500_000, fromUs: 1_000_000, toUs: 5_500_000 });
  });

  it('runs a silence that began in the window until the first answer, after the window', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act
    tracker.sent(20_000_000, 0);
    tracker.settled(85_000_000, 0, true);

    // Assert
    expect(tracker.longestSilence()).toEqual({ sinceUs: 20_000_000, fromUs: 20_000_000, toUs: 85_000_000 });
  });

  it('leaves out a silence that began after the window (the drain)', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act
    tracker.sent(20_990_000, 0);
    tracker.settled(21_000_000, 1, true);
    tracker.settled(40_000_000, 0, true);

    // Assert: only the 10 ms inside it.
    expect(tracker.longestSilence()).toEqual({ sinceUs: 20_990_000, fromUs: 20_990_000, toUs: 21_000_000 });
  });

  it('leaves out a silence from after a request cap closed the window', () => {
    // Prepare
    const window = { ...WINDOW };
    const tracker = new SilenceTracker(window);
    tracker.sent(10_000_000, 0);
    tracker.settled(18_000_000, 0, true);

    // Act
    window.activeToUs = 5_000_000;

    // Assert
    expect(tracker.longestSilence()).toBeUndefined();
  });

  it('takes the mean interval between answers from the first request to the last answer', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);
    tracker.sent(0, 0);

    // Act: 4 answers by 20 s, and a timeout (no answer) after.
    answerEvery(tracker, 0, 20_000_000, 5_000_000);
    tracker.settled(30_000_000, 0, false);

    // Assert
    expect(tracker.meanAnswerIntervalUs()).toBe(5_000_000);
  });

  it('is no stall when the silence is within 20 intervals between answers', () => {
    // Prepare: one request at a time, 2 s each, then one of 30 s (mean interval 46 s / 9).
    const tracker = new SilenceTracker(WINDOW);
    tracker.sent(1_000_000, 0);
    answerEvery(tracker, 1_000_000, 17_000_000, 2_000_000);

    // Act
    tracker.settled(47_000_000, 0, true);

    // Assert: a 30 s silence against 20 × 5.1 s.
    expect(tracker.longestSilence()).toEqual({ sinceUs: 17_000_000, fromUs: 17_000_000, toUs: 47_000_000 });
    expect(tracker.stall(65_000_000)).toBeUndefined();
  });
});

describe('longestStall', () => {
  it('takes the longest of the parts', () => {
    expect(
      longestStall([undefined, { atMs: 1000, durationMs: 6000 }, { atMs: 3000, durationMs: 17_000 }]),
    ).toEqual({ atMs: 3000, durationMs: 17_000 });
  });

  it('is nothing when no part stalled', () => {
    expect(longestStall([undefined, undefined])).toBeUndefined();
  });
});

describe('describeStallAt', () => {
  it('names where the stall began and how long it lasted', () => {
    expect(describeStallAt({ atMs: 1000, durationMs: 17_000 }, 'step 3 (2 in flight)')).toBe(
      'endpoint stalled at 1.0 s into step 3 (2 in flight) for 17.0 s',
    );
  });
});
