/** autocannon against a URL: same method, body, concurrency and duration as our engine's run. */
import autocannon from 'autocannon';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { url: { type: 'string' }, connections: { type: 'string' }, seconds: { type: 'string' } },
});
const result = await autocannon({
  url: values.url ?? '',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"inputs":[1,2,3]}',
  connections: Number(values.connections),
  duration: Number(values.seconds),
});
console.log(
  JSON.stringify({
    requests: result.requests.total,
    seconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
  }),
);
