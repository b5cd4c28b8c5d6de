/**
 * The trivial server of the loopback benchmarks: node:http answering 200 "ok" to anything.
 * `GET /served` answers `{ served }`, the responses it has ended to other requests so far: the
 * ceiling counts each tool's requests from here, the same way for both, over a window it chooses.
 * With `--stall-after-first-ms A --stall-for-ms D` it stalls once: every request arriving in
 * [T, T + D) is answered only at T + D, as a server pausing (GC, a noisy neighbour) would, where
 * T is A ms after the first request arrived; it then prints `{"stallFromEpochMs": T}`. Arming on
 * the first request puts the stall at the same place in the client's run however late the client
 * started. Prints {"port": n} when listening.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { serveBenchChild } from '../support/child-server.js';

const { values } = parseArgs({
  options: { 'stall-after-first-ms': { type: 'string' }, 'stall-for-ms': { type: 'string' } },
});
const stallAfterFirstMs =
  values['stall-after-first-ms'] === undefined ? undefined : Number(values['stall-after-first-ms']);
const stallForMs = Number(values['stall-for-ms'] ?? 0);
let stallFrom = Number.POSITIVE_INFINITY;
let stallTo = Number.POSITIVE_INFINITY;
const epochNow = (): number => performance.timeOrigin + performance.now();
let served = 0;

const server = createServer((request, response) => {
  request.resume();
  if (request.method === 'GET' && request.url === '/served') {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ served }));
    return;
  }
  const now = epochNow();
  if (stallAfterFirstMs !== undefined && stallFrom === Number.POSITIVE_INFINITY) {
    stallFrom = now + stallAfterFirstMs;
    stallTo = stallFrom + stallForMs;
    console.log(JSON.stringify({ stallFromEpochMs: stallFrom }));
  }
  if (now >= stallFrom && now < stallTo) {
    setTimeout(() => {
      served++;
      response.end('ok');
    }, stallTo - now);
    return;
  }
  served++;
  response.end('ok');
});
serveBenchChild(server);
