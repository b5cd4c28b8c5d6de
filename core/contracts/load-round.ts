/**
 * Rounds: one-step load tests at one load, run after the stepped schedule by all workers from a
 * new shared start, decided by "Aggregate load test" on the figures merged over every worker
 * (load-test/rounds.ts). `knee` rounds bisect between the last step that met the SLA and the first
 * that breached it; `repeat` rounds measure the sustainable load again, for its spread.
 */
export type LoadRoundKind = 'knee' | 'repeat';

export interface LoadRound {
  /** Rounds run before this one (knee probes and repeats alike), from 0. */
  readonly index: number;
  readonly kind: LoadRoundKind;
  readonly load: number;
}
