import { InvalidRunInputError } from '../contracts/errors.js';
import type { InvokeRequest } from './ports.js';
import { seededRandom } from '../shared/seeded-random.js';

/**
 * A run's payloads, each request drawing one by weight. The bodies are loaded once per worker
 * (the caller reads them before the test); each step of each worker draws from its own seeded
 * generator (`payloadSeed`), so a run repeats its sequence of payloads exactly, and workers send
 * different sequences rather than the same payload at the same moment.
 */

/** One request body of a mix and its relative weight (any positive number). */
export interface WeightedRequest {
  readonly request: InvokeRequest;
  readonly weight: number;
}

/** Draws payload indexes for one worker's step: the engine's per-request choice. */
export interface PayloadDraw {
  /** The index of the payload the next request sends. */
  next(): number;
}

/** MurmurHash3's 32-bit finalizer: nearby inputs (worker 0 and 1) give unrelated seeds. */
function mix32(value: number): number {
  let h = value >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * The seed of one worker's step (of one segment, when the step is split across worker
 * invocations): fixed for a (worker, step, segment) triple, different between triples, so a
 * resumed step draws on rather than repeating the sequence its first segment drew.
 */
export function payloadSeed(workerIndex: number, stepIndex: number, segmentIndex = 0): number {
  return mix32(
    mix32(workerIndex + 1) ^ Math.imul(stepIndex + 1, 0x9e3779b1) ^ Math.imul(segmentIndex, 0x85ebca6b),
  );
}

export class PayloadMix {
  /** Upper ends of each payload's share of [0, 1), in order; the last is 1. */
  private readonly cumulative: Float64Array;

  private constructor(private readonly entries: readonly WeightedRequest[]) {
    const total = entries.reduce((sum, entry) => sum + entry.weight, 0);
    this.cumulative = new Float64Array(entries.length);
    let running = 0;
    entries.forEach((entry, index) => {
      running += entry.weight;
      this.cumulative[index] = running / total;
    });
    // Rounding must never leave a draw just below 1 without a payload.
    this.cumulative[entries.length - 1] = 1;
  }

  /** A mix of several payloads; every weight must be a positive finite number. */
  static of(entries: readonly WeightedRequest[]): PayloadMix {
    const refused = entries.findIndex((entry) => !(Number.isFinite(entry.weight) && entry.weight > 0));
    if (entries.length === 0 || refused >= 0) {
      throw new InvalidRunInputError([
        {
          field: refused >= 0 ? `payloads[${refused}].weight` : 'payloads',
          given: refused >= 0 ? String(entries[refused]?.weight) : 'no payloads',
          expected: 'at least one payload, each with a weight above 0',
        },
      ]);
    }
    return new PayloadMix(entries);
  }

  /** One payload sent by every request. */
  static single(request: InvokeRequest): PayloadMix {
    return new PayloadMix([{ request, weight: 1 }]);
  }

  get size(): number {
    return this.entries.length;
  }

  /** The request of payload `index` (an index `draw` gave). */
  request(index: number): InvokeRequest {
    const entry = this.entries[index];
    if (entry === undefined) throw new RangeError(`no payload ${index}: the mix has ${this.size}`);
    return entry.request;
  }

  /** The draw of one worker's step, seeded by `payloadSeed(workerIndex, stepIndex)`. */
  draw(seed: number): PayloadDraw {
    if (this.size === 1) return { next: () => 0 };
    const random = seededRandom(seed);
    const cumulative = this.cumulative;
    const last = cumulative.length - 1;
    return {
      next: () => {
        const u = random();
        // The first payload whose share ends above u (binary search: a mix has at most ~50).
        let low = 0;
        let high = last;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if ((cumulative[middle] ?? 1) > u) high = middle;
          else low = middle + 1;
        }
        return low;
      },
    };
  }
}
