/** One instance's share of a test's requests (or, on AWS, the variant's per-instance figure). */
export interface InstanceShare {
  readonly instance: string;
  readonly invocations: number;
}

/**
 * How a test's requests spread over an endpoint's instances, as the proof (`serveTarget.proof`) and
 * every measured multi-instance candidate report it.
 */
export interface InstanceSpread {
  /** Per instance (locally, from the routing front) or the variant's per-instance figure (AWS). */
  readonly perInstance?: readonly InstanceShare[];
  /**
   * The busiest instance's invocations ÷ the least busy one's, rounded to 2 decimals: 1 is an even
   * spread. Only with one count per instance (locally), and none when an instance served nothing.
   */
  readonly perInstanceImbalance?: number;
  /** Where `perInstance` comes from and what it covers, or why it is missing. */
  readonly perInstanceNote: string;
}

/** max ÷ min of two or more counts; undefined for fewer, or when the least busy served nothing. */
export function imbalanceOf(shares: readonly InstanceShare[]): number | undefined {
  if (shares.length < 2) return undefined;
  const counts = shares.map((s) => s.invocations);
  const least = Math.min(...counts);
  if (least <= 0) return undefined;
  return Math.round((Math.max(...counts) / least) * 100) / 100;
}

/** `instance-1 512, instance-2 488 invocations (max/min 1.05; counted by …)`: one sentence's body. */
export function instanceSpreadText(spread: Partial<InstanceSpread>): string {
  if (spread.perInstance === undefined) return spread.perInstanceNote ?? 'not read';
  const counts = spread.perInstance.map((i) => `${i.instance} ${i.invocations}`).join(', ');
  const ratio = spread.perInstanceImbalance === undefined ? '' : `max/min ${spread.perInstanceImbalance}; `;
  return `${counts} invocations (${ratio}${spread.perInstanceNote ?? ''})`;
}
