/**
 * The trivial server of the loopback benchmarks: node:http answering 200 "ok" to anything.
 * With `--stall-at-epoch-ms T --stall-for-ms D` it stalls once: every request arriving in
 * [T, T + D) is answered only at T + D, as a server pausing (GC, a noisy neighbour) would.
 * Prints {"port": n} when listening.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { serveBenchChild } from '../support/child-server.js';

const { values } = parseArgs({
  options: { 'stall-at-epoch-ms': { type: 'string' }, 'stall-for-ms': { type: 'string' } },
});
const stallFrom =
  values['stall-at-epoch-ms'] === undefined ? Number.POSITIVE_INFINITY : Number(values['stall-at-epoch-ms']);
const stallTo = stallFrom + Number(values['stall-for-ms'] ?? 0);
const epochNow = (): number => performance.timeOrigin + performance.now();

const server = createServer((request, response) => {
  request.resume();
  const now = epochNow();
  if (now >= stallFrom && now < stallTo) {
    setTimeout(() => response.end('ok'), stallTo - now);
    return;
  }
  response.end('ok');
});
serveBenchChild(server);
