/**
 * Mulberry32: a tiny, fast 32-bit PRNG. Not for cryptography; chosen because the same seed gives
 * the same sequence on every platform and Node version (only 32-bit integer arithmetic), which is
 * what makes the generated model byte-for-byte reproducible.
 */
export function createSeededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` values drawn uniformly from [low, high). */
export function uniformValues(random: () => number, count: number, low: number, high: number): Float32Array {
  const values = new Float32Array(count);
  for (let i = 0; i < count; i += 1) values[i] = low + (high - low) * random();
  return values;
}
