import { describe, expect, it } from '@jest/globals';
import { decodeHistogram } from '../../../../core/load-test/histogram.js';
import {
  type StreamedOutcome,
  StreamStepRecorder,
} from '../../../../core/load-test/streaming/step-recorder.js';

/** A successful streamed request sent at 0: its first token at 50 ms, then the given gaps. */
function streamed(interTokenUs: readonly number[], outputTokens: number): StreamedOutcome {
  return {
    kind: 'ok',
    streamed: {
      sentUs: 0,
      timing: {
        e2eUs: 50_000 + interTokenUs.reduce((sum, gap) => sum + gap, 0),
        ttftUs: 50_000,
        interTokenUs,
        outputTokens,
        outputTokenSource: 'server',
        countedTokens: interTokenUs.length + 1,
      },
    },
  };
}

describe('StreamStepRecorder', () => {
  it("records each request's time per output token: its decode time over its tokens after the first", () => {
    // Arrange
    const recorder = new StreamStepRecorder('tgi');

    // Act: 9 tokens 5 ms apart; speculative decoding, 8 tokens in 3 pieces 14 ms apart; one token.
    recorder.record(
      0,
      streamed(
        Array.from({ length: 8 }, () => 5_000),
        9,
      ),
    );
    recorder.record(0, streamed([14_000, 14_000, 14_000], 8));
    recorder.record(0, streamed([], 1));

    // Assert: 40 ms ÷ 8 and 42 ms ÷ 7 (5,003 µs: 5 ms as the histogram resolves it); the one-token
    // answer has no decode time.
    const figures = recorder.toFigures();
    const tpot = decodeHistogram(figures.tpotHistogram ?? '');
    expect(tpot.totalCount).toBe(2);
    expect([tpot.getValueAtPercentile(50), figures.maxTpotUs]).toEqual([5_003, 6_000]);
  });

  it('gives its p95s and tokens so far for progress events', () => {
    // Arrange
    const recorder = new StreamStepRecorder('tgi');
    recorder.record(0, streamed([10_000, 10_000, 10_000], 4));

    // Act
    const live = recorder.live();

    // Assert
    expect(live).toEqual({ ttftP95Us: 50_000, itlP95Us: 10_000, outputTokens: 4 });
  });
  it('records the TTFT of a request that timed out before its first token at its recorded latency', () => {
    // Arrange
    const recorder = new StreamStepRecorder('tgi');
    const timedOut: StreamedOutcome = {
      kind: 'timeout',
      message: 'no complete stream within 65000 ms',
      streamed: {
        sentUs: 0,
        timing: {
          e2eUs: 65_000_000,
          interTokenUs: [],
          outputTokens: 0,
          outputTokenSource: 'counted',
          countedTokens: 0,
        },
      },
    };

    // Act
    recorder.recordUnanswered(0, 65_000_000, timedOut);

    // Assert
    expect(recorder.toFigures().maxTtftUs).toBe(65_000_000);
  });

  it('records the measured TTFT of a request that timed out after its first token', () => {
    // Arrange
    const recorder = new StreamStepRecorder('tgi');

    // Act: first token 50 ms after it was sent, 10 ms after its scheduled start.
    recorder.recordUnanswered(-10_000, 65_010_000, {
      ...streamed([5_000], 2),
      kind: 'timeout',
      message: 'x',
    });

    // Assert
    expect(recorder.toFigures().maxTtftUs).toBe(60_000);
  });
});
