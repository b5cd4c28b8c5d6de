/** `node --import tsx bench/streaming-only.ts`: the streaming row alone (its figures). */
import { loadavg } from 'node:os';
import { benchStreaming } from './streaming.js';

const load = (): string =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
console.log(`load average at start ${load()}`);
const row = await benchStreaming();
console.log(`${row.pass ? 'ok  ' : 'FAIL'} ${row.name}: ${row.measured}`);
console.log(JSON.stringify(row.details));
console.log(`load average at end ${load()}`);
if (!row.pass) process.exitCode = 1;
