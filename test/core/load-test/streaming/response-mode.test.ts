import { describe, expect, it } from '@jest/globals';
import { stepInvokerOf } from '../../../../core/load-test/streaming/step-invoker.js';
import { parseLoadPlan } from '../../../../core/contracts/load-plan.js';
import { parseSla } from '../../../../core/contracts/latency-sla.js';

describe('loadPlan.response', () => {
  it('keeps a streaming mode with its format', () => {
    expect(parseLoadPlan({ steps: [1], response: { mode: 'stream', format: 'lmi-sse' } }).response).toEqual({
      mode: 'stream',
      format: 'lmi-sse',
    });
  });

  it('writes nothing into a plan without it', () => {
    expect(parseLoadPlan({ steps: [1] })).not.toHaveProperty('response');
  });

  it('leaves a stream without its format to the run input, which knows the container', () => {
    expect(parseLoadPlan({ steps: [1], response: { mode: 'stream' } }).response).toEqual({ mode: 'stream' });
  });

  it('refuses, in the engine, a stream that still has no format', () => {
    // Prepare
    const plan = parseLoadPlan({ steps: [1], response: { mode: 'stream' } });
    const clock = { nowUs: () => 0, epochMs: () => 0, sleepUntil: () => Promise.resolve() };

    // Act
    const act = (): unknown => stepInvokerOf(plan, parseSla({ p95LatencyMs: 100 }), {}, clock);

    // Assert
    expect(act).toThrow(
      'Invalid run input: loadPlan.response.format: got nothing, expected the stream format the container emits, with mode "stream"',
    );
  });

  it('refuses a format with a buffered response', () => {
    expect(() => parseLoadPlan({ steps: [1], response: { mode: 'buffered', format: 'tgi' } })).toThrow(
      'Invalid run input: loadPlan.response.format: got "tgi", expected nothing with mode "buffered" (a format is read only from a streamed response): set mode "stream" or remove format',
    );
  });

  it('refuses a format the parsers do not read', () => {
    expect(() => parseLoadPlan({ steps: [1], response: { mode: 'stream', format: 'openai-chat' } })).toThrow(
      'loadPlan.response.format: got "openai-chat"',
    );
  });
});

describe('streaming SLA bounds', () => {
  it('accepts TTFT and ITL p95 as the only latency bounds', () => {
    expect(parseSla({ ttftP95Ms: 500, itlP95Ms: 50 })).toEqual({
      ttftP95Ms: 500,
      itlP95Ms: 50,
      maxErrorRate: 0.01,
    });
  });

  it('refuses a TTFT bound that is not positive', () => {
    expect(() => parseSla({ ttftP95Ms: 0 })).toThrow('sla.ttftP95Ms: got 0, expected a number above 0');
  });
});
