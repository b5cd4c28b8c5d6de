import { describe, expect, it } from '@jest/globals';
import {
  STALL_MEDIAN_MULTIPLE,
  STALL_MIN_SILENCE_MS,
  SilenceTracker,
  describeStallAt,
  longestStall,
  stallThresholdUs,
} from '../../../handlers/load-test/stall.js';

const WINDOW = { activeFromUs: 1_000_000, activeToUs: 21_000_000 };

describe('stallThresholdUs', () => {
  it('is the floor for a fast model', () => {
    expect(stallThresholdUs(25_000, 65_000_000)).toBe(STALL_MIN_SILENCE_MS * 1000);
  });

  it('grows with the median latency of a slow model', () => {
    expect(stallThresholdUs(1_000_000, 65_000_000)).toBe(STALL_MEDIAN_MULTIPLE * 1_000_000);
  });

  it('never exceeds the request timeout', () => {
    expect(stallThresholdUs(10_000_000, 65_000_000)).toBe(65_000_000);
  });

  it('is the floor when no request succeeded (median 0)', () => {
    expect(stallThresholdUs(0, 65_000_000)).toBe(STALL_MIN_SILENCE_MS * 1000);
  });
});

describe('SilenceTracker', () => {
  it('measures the longest stretch with requests outstanding and no answer', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act: answers every 25 ms until 2 s, then none until 19 s.
    tracker.sent(1_000_000, 0);
    for (let atUs = 1_025_000; atUs <= 2_000_000; atUs += 25_000) tracker.answered(atUs, 1);
    tracker.answered(19_000_000, 1);
    tracker.answered(19_025_000, 0);

    // Assert
    expect(tracker.longestSilence()).toEqual({ fromUs: 2_000_000, toUs: 19_000_000 });
  });

  it('does not count time with nothing outstanding as silence', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act: one 10 ms request, 15 s with nothing in flight, another 10 ms request.
    tracker.sent(2_000_000, 0);
    tracker.answered(2_010_000, 0);
    tracker.sent(17_000_000, 0);
    tracker.answered(17_010_000, 0);

    // Assert
    expect(tracker.longestSilence()).toEqual({ fromUs: 2_000_000, toUs: 2_010_000 });
  });

  it('counts a silence that began in the warm-up from the window start', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act: sent at 0.5 s (warm-up), no answer until 9 s.
    tracker.sent(500_000, 0);
    tracker.answered(9_000_000, 0);

    // Assert
    expect(tracker.longestSilence()).toEqual({ fromUs: 1_000_000, toUs: 9_000_000 });
  });

  it('runs a silence that began in the window until the first answer, after the window', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act
    tracker.sent(20_000_000, 0);
    tracker.answered(85_000_000, 0);

    // Assert
    expect(tracker.longestSilence()).toEqual({ fromUs: 20_000_000, toUs: 85_000_000 });
  });

  it('leaves out a silence that began after the window (the drain)', () => {
    // Prepare
    const tracker = new SilenceTracker(WINDOW);

    // Act
    tracker.sent(20_990_000, 0);
    tracker.answered(21_000_000, 1);
    tracker.answered(40_000_000, 0);

    // Assert: only the 10 ms inside it.
    expect(tracker.longestSilence()).toEqual({ fromUs: 20_990_000, toUs: 21_000_000 });
  });

  it('leaves out a silence from after a request cap closed the window', () => {
    // Prepare
    const window = { ...WINDOW };
    const tracker = new SilenceTracker(window);
    tracker.sent(10_000_000, 0);
    tracker.answered(18_000_000, 0);

    // Act
    window.activeToUs = 5_000_000;

    // Assert
    expect(tracker.longestSilence()).toBeUndefined();
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
