/**
 * `npm run bench`: the load-test engine's seven benchmarks, one after the other (they would disturb
 * each other in parallel), a table on stdout and everything measured in bench/out/results.json.
 * Each row takes the load average before and after it: a row the machine was too busy to judge
 * says so and does not fail the run (support/load-guard.ts states the threshold and why).
 * Method and recorded figures: bench/RESULTS.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform } from 'node:os';
import { fileURLToPath } from 'node:url';
import { benchCapacityPlateau } from './capacity-plateau.js';
import { benchCeiling } from './ceiling.js';
import { benchCoordinatedOmission } from './coordinated-omission.js';
import { benchMergeAccuracy } from './merge-accuracy.js';
import { benchRecordingOverhead } from './recording-overhead.js';
import { benchSignedPath } from './signed-path.js';
import { benchStreaming } from './streaming.js';
import { MAX_LOAD_PER_CORE, loadVerdict, rowStatus } from './support/load-guard.js';
import { formatTable } from './support/report.js';
import type { BenchRow, ReportedRow } from './support/report.js';

interface Benchmark {
  readonly run: () => BenchRow | Promise<BenchRow>;
  /** Whether its figures depend on the machine's speed (times, rates): merge accuracy's do not. */
  readonly loadSensitive: boolean;
}

const benchmarks: readonly Benchmark[] = [
  { run: benchRecordingOverhead, loadSensitive: true },
  { run: benchCeiling, loadSensitive: true },
  { run: benchCoordinatedOmission, loadSensitive: true },
  { run: benchMergeAccuracy, loadSensitive: false },
  { run: benchCapacityPlateau, loadSensitive: true },
  { run: benchSignedPath, loadSensitive: true },
  { run: benchStreaming, loadSensitive: true },
];

const oneMinuteLoad = (): number => loadavg()[0] ?? 0;
const cores = cpus().length;
const began = Date.now();
const machine = {
  node: process.version,
  platform: `${platform()} ${arch()}`,
  cpus: `${cores} × ${cpus()[0]?.model ?? 'unknown'}`,
  loadAverageAtStart: loadavg().map((value) => Number(value.toFixed(2))),
  maxLoadPerCore: MAX_LOAD_PER_CORE,
};
console.log(
  `node ${machine.node}, ${machine.cpus}, load average ${machine.loadAverageAtStart.join(' ')}; ` +
    `rows are judged at a load of at most ${MAX_LOAD_PER_CORE * cores} (${MAX_LOAD_PER_CORE} per core)`,
);
const rows: ReportedRow[] = [];
for (const bench of benchmarks) {
  const startedAt = Date.now();
  const loadBefore = oneMinuteLoad();
  const row = await bench.run();
  const verdict = loadVerdict({ before: loadBefore, after: oneMinuteLoad(), cores }, bench.loadSensitive);
  const status = rowStatus(row.pass, verdict);
  rows.push({
    ...row,
    status,
    load: verdict.load,
    details: { ...row.details, loadAverageBefore: loadBefore, loadVerdict: verdict },
  });
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  const label = status === 'busy' ? 'busy' : status === 'ok' ? 'ok  ' : 'FAIL';
  const judged = verdict.judged ? `load ${verdict.load.toFixed(2)}` : verdict.reason;
  console.log(`${label} ${row.name}: ${row.measured} (${judged}; ${seconds} s)`);
}
console.log(`\n${formatTable(rows)}\n\ntotal ${((Date.now() - began) / 1000).toFixed(0)} s`);
const outDir = fileURLToPath(new URL('./out/', import.meta.url));
await mkdir(outDir, { recursive: true });
await writeFile(
  `${outDir}results.json`,
  `${JSON.stringify({ ranAt: new Date(began).toISOString(), machine, loadAverageAtEnd: loadavg(), rows }, null, 2)}\n`,
);
console.log(`details: ${outDir}results.json`);
if (rows.some((row) => row.status === 'FAIL')) process.exitCode = 1;
