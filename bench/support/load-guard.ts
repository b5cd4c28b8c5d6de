/**
 * Whether a row's figures may be judged: the machine's load average before and after the row,
 * against a threshold per core. A row run beside other work measures the machine, not the engine;
 * such a row reports its figures and says so, instead of failing on them.
 */

/**
 * At most 1.5 runnable processes per core (1-minute load average). The bench itself keeps up to
 * two processes busy at once (a server child and one client child; the parent sleeps while they
 * run), which is a load of 2 on this project's 2-core reference machine, 1 per core. Half a core
 * more of other work is still noise the paired, median-of-rounds figures absorb; beyond it the
 * bench's own processes wait for a core, and its timings and throughput ratios measure that wait.
 */
export const MAX_LOAD_PER_CORE = 1.5;

/** The 1-minute load average around a row (`os.loadavg()[0]`), and the machine's cores. */
export interface LoadSample {
  readonly before: number;
  readonly after: number;
  readonly cores: number;
}

export type LoadVerdict =
  | { readonly judged: true; readonly load: number; readonly cores: number }
  | { readonly judged: false; readonly load: number; readonly cores: number; readonly reason: string };

/**
 * The row is judged when the higher of the two samples is at most `maxPerCore` × cores: the
 * 1-minute average lags, so a burst that began during the row shows in the sample after it, and
 * one that ended during it in the sample before. A row whose figures do not depend on the
 * machine's speed (`loadSensitive` false) is always judged.
 */
export function loadVerdict(
  sample: LoadSample,
  loadSensitive: boolean,
  maxPerCore: number = MAX_LOAD_PER_CORE,
): LoadVerdict {
  const load = Math.max(sample.before, sample.after);
  const cores = Math.max(1, sample.cores);
  if (!loadSensitive || load <= maxPerCore * cores) return { judged: true, load, cores };
  return {
    judged: false,
    load,
    cores,
    reason: `machine too busy (load ${load.toFixed(2)} on ${cores} cores): not judged`,
  };
}

/** The row's status: passed, failed, or not judged because the machine was too busy. */
export type RowStatus = 'ok' | 'FAIL' | 'busy';

export function rowStatus(pass: boolean, verdict: LoadVerdict): RowStatus {
  if (!verdict.judged) return 'busy';
  return pass ? 'ok' : 'FAIL';
}
