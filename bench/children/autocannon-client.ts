/**
 * autocannon against a URL: same method, body, concurrency and duration as our engine's run. Also
 * reports its CPU time over the run (setup to result) and the requests it completed. With
 * `--announce-start` it first prints `{"started": true}` as it starts sending, so that the bench
 * can time it from outside (bench/support/window.ts).
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { cpuUsSince } from '../support/cpu.js';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    connections: { type: 'string' },
    seconds: { type: 'string' },
    'announce-start': { type: 'boolean' },
  },
});
if (values['announce-start'] === true) console.log(JSON.stringify({ started: true }));
const cpuStart = process.cpuUsage();
const result = await autocannon({
  url: values.url ?? '',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"inputs":[1,2,3]}',
  connections: Number(values.connections),
  duration: Number(values.seconds),
});
const cpuUs = cpuUsSince(cpuStart);
const loadEndedAtEpochMs = Date.now();
console.log(
  JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
    cost: { cpuUs, requests: result.requests.total },
    loadEndedAtEpochMs,
  }),
);
