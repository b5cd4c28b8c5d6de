/** `count` values drawn uniformly from [low, high). */
export function uniformValues(random: () => number, count: number, low: number, high: number): Float32Array {
  const values = new Float32Array(count);
  for (let i = 0; i < count; i += 1) values[i] = low + (high - low) * random();
  return values;
}
