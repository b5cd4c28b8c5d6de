import { describe, expect, it } from '@jest/globals';
import { InvalidRunInputError } from '../../../core/contracts/errors.js';
import { PayloadMix, payloadSeed } from '../../../core/load-test/payload-mix.js';
import type { InvokeRequest } from '../../../core/load-test/ports.js';

const SMALL: InvokeRequest = { body: new Uint8Array([1]), contentType: 'application/json' };
const MEDIUM: InvokeRequest = { body: new Uint8Array([1, 2]), contentType: 'application/json' };
const LARGE: InvokeRequest = { body: new Uint8Array([1, 2, 3]), contentType: 'application/x-npy' };

function counts(mix: PayloadMix, seed: number, draws: number): number[] {
  const draw = mix.draw(seed);
  const tally = new Array<number>(mix.size).fill(0);
  for (let index = 0; index < draws; index++) {
    const payload = draw.next();
    tally[payload] = (tally[payload] ?? 0) + 1;
  }
  return tally;
}

function sequence(mix: PayloadMix, seed: number, length: number): number[] {
  const draw = mix.draw(seed);
  return Array.from({ length }, () => draw.next());
}

describe('PayloadMix', () => {
  it('draws each payload in proportion to its weight, the same counts for the same seed', () => {
    // Prepare: weights 1, 3, 6 → expected shares 10 %, 30 %, 60 % of 10,000 draws.
    const mix = PayloadMix.of([
      { request: SMALL, weight: 1 },
      { request: MEDIUM, weight: 3 },
      { request: LARGE, weight: 6 },
    ]);

    // Act
    const tally = counts(mix, payloadSeed(0, 0), 10_000);

    // Assert: exact for this seed, and each within 3 standard deviations of its expectation.
    expect(tally).toEqual([929, 3107, 5964]);
    expect(counts(mix, payloadSeed(0, 0), 10_000)).toEqual(tally);
    [0.1, 0.3, 0.6].forEach((share, index) => {
      const sd = Math.sqrt(10_000 * share * (1 - share));
      expect(Math.abs((tally[index] ?? 0) - 10_000 * share)).toBeLessThan(3 * sd);
    });
  });

  it('treats weights as relative: 1 and 3 draw as 25 and 75 do', () => {
    // Prepare
    const small = PayloadMix.of([
      { request: SMALL, weight: 1 },
      { request: LARGE, weight: 3 },
    ]);
    const large = PayloadMix.of([
      { request: SMALL, weight: 25 },
      { request: LARGE, weight: 75 },
    ]);

    // Act & Assert
    expect(sequence(small, 7, 200)).toEqual(sequence(large, 7, 200));
  });

  it('gives each worker and each step its own sequence', () => {
    // Prepare
    const mix = PayloadMix.of([
      { request: SMALL, weight: 1 },
      { request: LARGE, weight: 1 },
    ]);

    // Act
    const worker0 = sequence(mix, payloadSeed(0, 0), 64);
    const worker1 = sequence(mix, payloadSeed(1, 0), 64);
    const worker0Step1 = sequence(mix, payloadSeed(0, 1), 64);

    // Assert
    expect(worker1).not.toEqual(worker0);
    expect(worker0Step1).not.toEqual(worker0);
    expect(new Set([payloadSeed(0, 0), payloadSeed(1, 0), payloadSeed(0, 1), payloadSeed(1, 1)]).size).toBe(
      4,
    );
  });

  it('sends the one payload of a single mix every time', () => {
    // Prepare
    const mix = PayloadMix.single(SMALL);

    // Act
    const drawn = sequence(mix, payloadSeed(3, 2), 5);

    // Assert
    expect(drawn).toEqual([0, 0, 0, 0, 0]);
    expect(mix.requests(0)).toEqual([SMALL]);
  });

  it('refuses a weight that is not above 0, naming the payload', () => {
    // Act
    const act = () =>
      PayloadMix.of([
        { request: SMALL, weight: 1 },
        { request: LARGE, weight: Number.NaN },
      ]);

    // Assert
    expect(act).toThrow(InvalidRunInputError);
    expect(act).toThrow(
      'Invalid run input: payloads[1].weight: got NaN, expected at least one payload, each with a weight above 0',
    );
  });
  it('draws the groups in the sequence a mix of single payloads of the same weights draws', () => {
    // Prepare
    const singles = PayloadMix.of([
      { request: SMALL, weight: 2 },
      { request: LARGE, weight: 1 },
    ]);
    const groups = PayloadMix.of([
      { requests: [SMALL, MEDIUM], weight: 2 },
      { requests: [LARGE], weight: 1 },
    ]);

    // Act
    const drawn = sequence(groups, payloadSeed(2, 1), 200);

    // Assert
    expect(drawn).toEqual(sequence(singles, payloadSeed(2, 1), 200));
  });

  it('sends every request of a group, uniformly, the same ones for the same seed', () => {
    // Prepare
    const mix = PayloadMix.of([{ requests: [SMALL, MEDIUM, LARGE], weight: 1 }]);
    const picks = (seed: number) => {
      const draw = mix.draw(seed);
      return Array.from({ length: 3000 }, () => draw.request(draw.next()).body.length);
    };

    // Act
    const sent = picks(payloadSeed(0, 0));

    // Assert: each within 3 standard deviations of 1,000, and repeated exactly.
    const sd = Math.sqrt(3000 * (1 / 3) * (2 / 3));
    [1, 2, 3].forEach((size) => {
      expect(Math.abs(sent.filter((length) => length === size).length - 1000)).toBeLessThan(3 * sd);
    });
    expect(picks(payloadSeed(0, 0))).toEqual(sent);
  });

  it('refuses a group without a request, naming the payload', () => {
    // Act
    const act = () =>
      PayloadMix.of([
        { request: SMALL, weight: 1 },
        { requests: [], weight: 1 },
      ]);

    // Assert
    expect(act).toThrow(
      'Invalid run input: payloads[1]: got a group of no requests, expected at least one request a group',
    );
  });
});
