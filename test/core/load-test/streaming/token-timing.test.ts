import { describe, expect, it } from '@jest/globals';
import { TokenTimingRecorder } from '../../../../core/load-test/streaming/token-timing.js';
import type { StreamEvent } from '../../../../core/load-test/streaming/stream-events.js';

const token = (text: string, special = false): StreamEvent => ({ kind: 'token', text, special });

/** Feeds events stamped with their arrival time (µs) to a recorder started at `startUs`. */
function timingOf(startUs: number, stamped: readonly [number, StreamEvent][], endUs: number) {
  const recorder = new TokenTimingRecorder(startUs);
  for (const [atUs, event] of stamped) recorder.record(atUs, event);
  return recorder.finish(endUs);
}

describe('TokenTimingRecorder', () => {
  it('measures TTFT from the start to the first visible token and each gap after it', () => {
    const timing = timingOf(
      1_000,
      [
        [2_000, token('Deep')],
        [2_400, token(' learning')],
        [3_150.5, token(' is')],
      ],
      3_300,
    );

    expect(timing).toEqual({
      e2eUs: 2_300,
      ttftUs: 1_000,
      interTokenUs: [400, 750.5],
      outputTokens: 3,
      outputTokenSource: 'counted',
      countedTokens: 3,
    });
  });

  it('gives a gap of 0 to tokens that arrived in the same payload part', () => {
    const timing = timingOf(
      0,
      [
        [500, token('a')],
        [900, token('b')],
        [900, token('c')],
      ],
      1_000,
    );

    expect(timing.interTokenUs).toEqual([400, 0]);
  });

  it('does not start TTFT on an empty or special token, but counts them as output tokens', () => {
    const timing = timingOf(
      0,
      [
        [100, token('')],
        [200, token('<s>', true)],
        [700, token('Hi')],
        [900, token('</s>', true)],
      ],
      950,
    );

    expect(timing).toEqual({
      e2eUs: 950,
      ttftUs: 700,
      interTokenUs: [],
      outputTokens: 4,
      outputTokenSource: 'counted',
      countedTokens: 4,
    });
  });

  it('starts TTFT on a whitespace token: the server generated it and a client shows it', () => {
    const timing = timingOf(
      0,
      [
        [300, token(' ')],
        [450, token('\n')],
      ],
      500,
    );

    expect({ ttftUs: timing.ttftUs, interTokenUs: timing.interTokenUs }).toEqual({
      ttftUs: 300,
      interTokenUs: [150],
    });
  });

  it("takes the output tokens from the server's usage when it reports them, keeping the counted figure", () => {
    const timing = timingOf(
      0,
      [
        [100, token('Deep learning')],
        [200, token(' is fun')],
        [250, { kind: 'usage', outputTokens: 5, inputTokens: 12 }],
        [250, { kind: 'done', finishReason: 'stop' }],
      ],
      260,
    );

    expect(timing).toEqual({
      e2eUs: 260,
      ttftUs: 100,
      interTokenUs: [100],
      outputTokens: 5,
      outputTokenSource: 'server',
      countedTokens: 2,
      inputTokens: 12,
      finishReason: 'stop',
    });
  });

  it('has no TTFT when no visible token came before the stream failed', () => {
    const timing = timingOf(
      0,
      [[400, { kind: 'failure', failure: { reason: 'model-error', message: 'TGI stream error: OOM' } }]],
      600,
    );

    expect(timing).toEqual({
      e2eUs: 600,
      interTokenUs: [],
      outputTokens: 0,
      outputTokenSource: 'counted',
      countedTokens: 0,
    });
  });
});
