/**
 * `npm run bench`: the load-test engine's seven benchmarks, one after the other (they would disturb
 * each other in parallel), a table on stdout and everything measured in bench/out/results.json.
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
import { formatTable } from './support/report.js';
import type { BenchRow } from './support/report.js';

const benchmarks: readonly (() => BenchRow | Promise<BenchRow>)[] = [
  benchRecordingOverhead,
  benchCeiling,
  benchCoordinatedOmission,
  benchMergeAccuracy,
  benchCapacityPlateau,
  benchSignedPath,
  benchStreaming,
];

const began = Date.now();
const machine = {
  node: process.version,
  platform: `${platform()} ${arch()}`,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown'}`,
  loadAverageAtStart: loadavg().map((value) => Number(value.toFixed(2))),
};
console.log(`node ${machine.node}, ${machine.cpus}, load average ${machine.loadAverageAtStart.join(' ')}`);
const rows: BenchRow[] = [];
for (const bench of benchmarks) {
  const startedAt = Date.now();
  const row = await bench();
  rows.push(row);
  console.log(
    `${row.pass ? 'ok  ' : 'FAIL'} ${row.name}: ${row.measured} (${((Date.now() - startedAt) / 1000).toFixed(1)} s)`,
  );
}
console.log(`\n${formatTable(rows)}\n\ntotal ${((Date.now() - began) / 1000).toFixed(0)} s`);
const outDir = fileURLToPath(new URL('./out/', import.meta.url));
await mkdir(outDir, { recursive: true });
await writeFile(
  `${outDir}results.json`,
  `${JSON.stringify({ ranAt: new Date(began).toISOString(), machine, loadAverageAtEnd: loadavg(), rows }, null, 2)}\n`,
);
console.log(`details: ${outDir}results.json`);
if (rows.some((row) => !row.pass)) process.exitCode = 1;
