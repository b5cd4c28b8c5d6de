/**
 * Mulberry32: a 32-bit pseudo-random generator with a full 2^32 period, a few integer operations
 * per number. Not for cryptography; chosen because the same seed gives the same sequence on every
 * platform and Node version (only 32-bit integer arithmetic): the payload mix's draws, the example
 * model's weights and the statistical tests all repeat exactly. It sits on the floor, which imports
 * nothing, because the model server's image copies it alone (local/model-server/Dockerfile) and
 * the load generator draws from it too.
 */
/**
 * Read once: under jest, modules run in a vm context, where every lookup of a global such as `Math`
 * goes through the context's global object and costs more than the arithmetic of a draw.
 */
const { imul } = Math;

export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
