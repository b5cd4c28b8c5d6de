/**
 * autocannon against a URL: same method, body, concurrency and duration as our engine's run. Also
 * reports its CPU time over the run (setup to result) and the requests it completed.
 */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';
import { cpuUsSince } from '../support/cpu.js';

const { values } = parseArgs({
  options: { url: { type: 'string' }, connections: { type: 'string' }, seconds: { type: 'string' } },
});
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
console.log(
  JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
    cost: { cpuUs, requests: result.requests.total },
  }),
);
