import { InvalidRunInputError, seededRandom } from '../contracts/index.js';
import type { InvokeRequest } from './ports.js';

/**
 * A run's payloads, each request drawing one by weight. The bodies are loaded once per worker
 * (the caller reads them before the test); each step of each worker draws from its own seeded
 * generator (`payloadSeed`), so a run repeats its sequence of payloads exactly, and workers send
 * different sequences rather than the same payload at the same moment.
 *
 * A payload of the mix may be a group of requests (a bucket of a prompt set, core/load-test/
 * prompts/): the draw picks the group by weight, then one of its requests uniformly, from a second
 * generator of the same seed, so that the groups' sequence is the one a mix of single payloads
 * would draw. The step's figures per payload are then per group.
 */

/** One request body of a mix and its relative weight (any positive number). */
export interface WeightedRequest {
  readonly request: InvokeRequest;
  readonly weight: number;
}

/** A group of request bodies (e.g. the prompts of one bucket), drawn as one payload of the mix. */
export interface WeightedRequests {
  readonly requests: readonly InvokeRequest[];
  readonly weight: number;
}

/** Draws payload indexes for one worker's step: the engine's per-request choice. */
export interface PayloadDraw {
  /** The index of the payload the next request sends. */
  next(): number;
  /** The request payload `index` (an index `next` gave) sends: one of its group's, drawn. */
  request(index: number): InvokeRequest;
}

/** Decorrelates the pick within a group from the group's draw, both from one seed. */
const GROUP_SEED_SALT = 0x5bd1e995;

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

  private constructor(
    private readonly groups: readonly (readonly InvokeRequest[])[],
    weights: readonly number[],
  ) {
    const total = weights.reduce((sum, weight) => sum + weight, 0);
    this.cumulative = new Float64Array(weights.length);
    let running = 0;
    weights.forEach((weight, index) => {
      running += weight;
      this.cumulative[index] = running / total;
    });
    // Rounding must never leave a draw just below 1 without a payload.
    this.cumulative[weights.length - 1] = 1;
  }

  /**
   * A mix of several payloads, each one request or a group of them; every weight must be a
   * positive finite number and every group hold a request.
   */
  static of(entries: readonly (WeightedRequest | WeightedRequests)[]): PayloadMix {
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
    const groups = entries.map((entry) => ('requests' in entry ? entry.requests : [entry.request]));
    const empty = groups.findIndex((group) => group.length === 0);
    if (empty >= 0) {
      throw new InvalidRunInputError([
        {
          field: `payloads[${empty}]`,
          given: 'a group of no requests',
          expected: 'at least one request a group',
        },
      ]);
    }
    return new PayloadMix(
      groups,
      entries.map((entry) => entry.weight),
    );
  }

  /** One payload sent by every request. */
  static single(request: InvokeRequest): PayloadMix {
    return new PayloadMix([[request]], [1]);
  }

  get size(): number {
    return this.groups.length;
  }

  /** The requests of payload `index`: one, or its group's. */
  requests(index: number): readonly InvokeRequest[] {
    const group = this.groups[index];
    if (group === undefined) throw new RangeError(`no payload ${index}: the mix has ${this.size}`);
    return group;
  }

  /** The draw of one worker's step, seeded by `payloadSeed(workerIndex, stepIndex)`. */
  draw(seed: number): PayloadDraw {
    const groups = this.groups;
    const pick = groups.some((group) => group.length > 1) ? seededRandom(seed ^ GROUP_SEED_SALT) : undefined;
    const request = (index: number): InvokeRequest => {
      const group = groups[index];
      if (group === undefined) throw new RangeError(`no payload ${index}: the mix has ${this.size}`);
      const chosen =
        pick === undefined || group.length === 1 ? group[0] : group[Math.floor(pick() * group.length)];
      // Never undefined: groups are not empty and the index is below the length.
      return chosen ?? (group[0] as InvokeRequest);
    };
    if (this.size === 1) return { next: () => 0, request };
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
      request,
    };
  }
}
