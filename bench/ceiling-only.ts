/** `node --import tsx bench/ceiling-only.ts`: the loopback ceiling alone (its figure). */
import { loadavg } from 'node:os';
import { benchCeiling } from './ceiling.js';

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(`load average at start ${load()}`);
const row = await benchCeiling();
console.log(`${row.pass ? 'ok  ' : 'FAIL'} ${row.name}: ${row.measured}`);
console.log(JSON.stringify(row.details));
console.log(`load average at end ${load()}`);
if (!row.pass) process.exitCode = 1;
