import { describe, expect, it } from '@jest/globals';
import { decodeHistogram, latencyPercentilesMs } from '../../../core/load-test/histogram.js';
import { StepRecorder } from '../../../core/load-test/step-recorder.js';
import type { StepWindow } from '../../../core/load-test/step-recorder.js';

const WINDOW: StepWindow = {
  stepIndex: 0,
  load: 2,
  workerLoad: 2,
  windowStartEpochMs: Date.UTC(2025, 0, 1),
  windowMs: 20_000,
  windowStartUs: 1_000_000,
  measuredCap: Number.POSITIVE_INFINITY,
  requestTimeoutUs: 65_000_000,
};

function histogramOf(recorder: StepRecorder) {
  const step = recorder.toWorkerStep();
  return { step, histogram: decodeHistogram(step.histogram) };
}

describe('StepRecorder, requests without an answer', () => {
  it('records a timeout at the request timeout when it settled sooner', () => {
    // Prepare
    const recorder = new StepRecorder(WINDOW);

    // Act: a timeout 30 s after its start (e.g. a server-side limit below the client's).
    recorder.recordError('timeout', undefined, 'timed out', true, undefined, 2_000_000);
    recorder.recordUnanswered({ startUs: 2_000_000, endUs: 32_000_000, cause: 'timeout' });

    // Assert
    const { step, histogram } = histogramOf(recorder);
    expect(histogram.totalCount).toBe(1);
    expect(step.maxLatencyUs).toBe(65_000_000);
    expect(step.errors.timeout).toBe(1);
  });

  it('records a timeout at its elapsed time when that is longer than the timeout', () => {
    // Prepare
    const recorder = new StepRecorder(WINDOW);

    // Act: an open-model arrival scheduled at 2 s, sent late, timed out at 70 s.
    recorder.recordUnanswered({ startUs: 2_000_000, endUs: 70_000_000, cause: 'timeout' });

    // Assert
    expect(histogramOf(recorder).step.maxLatencyUs).toBe(68_000_000);
  });

  it('records a request cut short by the step at its elapsed time only', () => {
    // Prepare
    const recorder = new StepRecorder(WINDOW);

    // Act
    recorder.recordUnanswered({ startUs: 2_000_000, endUs: 2_300_000, cause: 'cut' });

    // Assert
    expect(histogramOf(recorder).step.maxLatencyUs).toBe(300_000);
  });

  it('records a dropped arrival at least at the request timeout', () => {
    // Prepare
    const recorder = new StepRecorder({ ...WINDOW, timeline: true });

    // Act
    recorder.recordDropped(2_000_000, 67_000_001, 'timeout');

    // Assert
    const { step } = histogramOf(recorder);
    expect(step.dropped).toBe(1);
    expect(step.maxLatencyUs).toBe(65_000_001);
    expect(step.timeline?.[1]?.maxLatencyUs).toBe(65_000_001);
  });

  it('keeps timeouts in the percentiles with the successful requests', () => {
    // Prepare: 98 answers in 25 ms, 2 timeouts.
    const recorder = new StepRecorder(WINDOW);
    for (let index = 0; index < 98; index++) recorder.recordOk(2_000_000, 2_025_000, true);

    // Act
    for (let index = 0; index < 2; index++) {
      recorder.recordUnanswered({ startUs: 3_000_000, endUs: 68_000_000, cause: 'timeout' });
    }

    // Assert: p99 (rank 99 of 100) is a timeout.
    const { step, histogram } = histogramOf(recorder);
    expect(latencyPercentilesMs(histogram, step.maxLatencyUs).p99).toBe(65_000);
    expect(latencyPercentilesMs(histogram, step.maxLatencyUs).p95).toBeLessThan(26);
  });

  it("records a payload's timeout in that payload's figures too", () => {
    // Prepare
    const recorder = new StepRecorder({ ...WINDOW, payloads: 2 });

    // Act
    recorder.recordUnanswered({ startUs: 2_000_000, endUs: 3_000_000, cause: 'timeout' }, 1);

    // Assert
    const { step } = histogramOf(recorder);
    expect(step.payloads?.[1]?.maxLatencyUs).toBe(65_000_000);
    expect(step.payloads?.[0]?.maxLatencyUs).toBe(0);
  });
});

describe('StepRecorder, stalls', () => {
  it('flags a silence longer than the threshold with its start and length', () => {
    // Prepare: answers in 25 ms until 1 s into the window, then none for 17 s.
    const recorder = new StepRecorder(WINDOW);
    recorder.silence.sent(1_000_000, 0);
    for (let endUs = 1_025_000; endUs <= 2_000_000; endUs += 25_000) {
      recorder.silence.settled(endUs, 1, true);
      recorder.recordOk(endUs - 25_000, endUs, true);
    }

    // Act
    recorder.silence.settled(19_000_000, 0, true);

    // Assert
    expect(recorder.toWorkerStep().stall).toEqual({ atMs: 1000, durationMs: 17_000 });
  });

  it('does not flag a silence shorter than 20 intervals between answers of a slow model', () => {
    // Prepare: one request at a time, 10 s each: silences of 10 s, answers every 10 s.
    const recorder = new StepRecorder(WINDOW);
    recorder.silence.sent(1_000_000, 0);

    // Act
    recorder.silence.settled(11_000_000, 1, true);
    recorder.silence.settled(21_000_000, 0, true);

    // Assert
    expect(recorder.toWorkerStep().stall).toBeUndefined();
  });

  it('does not flag a 4 s pause of a fast model (below the 5 s floor)', () => {
    // Prepare: answers every 25 ms with one request outstanding throughout.
    const recorder = new StepRecorder(WINDOW);
    recorder.silence.sent(1_000_000, 0);
    const answersUs = (fromUs: number, toUs: number): number[] =>
      Array.from({ length: (toUs - fromUs) / 25_000 }, (_, index) => fromUs + (index + 1) * 25_000);

    // Act: none from 3 s to 7 s.
    for (const atUs of [...answersUs(1_000_000, 3_000_000), ...answersUs(7_000_000, 21_000_000)]) {
      recorder.silence.settled(atUs, 1, true);
    }

    // Assert
    expect(recorder.silence.longestSilence()).toEqual({
      sinceUs: 3_000_000,
      fromUs: 3_000_000,
      toUs: 7_025_000,
    });
    expect(recorder.toWorkerStep().stall).toBeUndefined();
  });
});
