/**
 * Our engine against a loopback server, in its own process; prints the aggregated result, and its
 * CPU time over the run (warm-up included) with the requests it sent in that time. With
 * `--announce-start` it first prints `{"started": true}` as it starts the run, so that the bench
 * can time it from outside (bench/support/window.ts).
 */
import { parseArgs } from 'node:util';
import { aggregateWorkerResults, runLoadTest, connectionsPerWorker } from '../../core/load-test/index.js';
import type { InvokeTransport } from '../../core/load-test/index.js';
import { createHttpInvokeTransport } from '../../local/adapters/index.js';
import { cpuUsSince } from '../support/cpu.js';
import { parseLoadPlan, parseSla } from '../../core/contracts/index.js';

const { values } = parseArgs({
  options: {
    origin: { type: 'string' },
    plan: { type: 'string' },
    sla: { type: 'string' },
    'announce-start': { type: 'boolean' },
  },
});
const plan = parseLoadPlan(JSON.parse(values.plan ?? '{}'));
const sla = parseSla(JSON.parse(values.sla ?? '{}'));
const transport = createHttpInvokeTransport({
  origin: values.origin ?? '',
  connections: connectionsPerWorker(plan),
  requestTimeoutMs: plan.requestTimeoutMs,
});
// The step's result counts only the window's requests; CPU is taken over the whole run, so every
// request sent (warm-up included) is counted here. The run waits for each one to settle.
let sent = 0;
const counted: InvokeTransport = {
  invoke: (request, signal) => {
    sent++;
    return transport.invoke(request, signal);
  },
};
if (values['announce-start'] === true) console.log(JSON.stringify({ started: true }));
const cpuStart = process.cpuUsage();
const worker = await runLoadTest({
  plan,
  sla,
  transport: counted,
  request: { body: new TextEncoder().encode('{"inputs":[1,2,3]}'), contentType: 'application/json' },
});
const cpuUs = cpuUsSince(cpuStart);
const loadEndedAtEpochMs = Date.now();
await transport.close();
console.log(
  JSON.stringify({
    worker,
    result: aggregateWorkerResults([worker], sla, plan),
    cost: { cpuUs, requests: sent },
    loadEndedAtEpochMs,
  }),
);
