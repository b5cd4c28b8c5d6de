/** Our engine against a loopback server, in its own process; prints the aggregated result. */
import { parseArgs } from 'node:util';
import { aggregateWorkerResults } from '../../handlers/load-test/aggregate.js';
import { runLoadTest } from '../../handlers/load-test/engine.js';
import { connectionsPerWorker, parseLoadPlan, parseSla } from '../../handlers/load-test/plan.js';
import { createHttpInvokeTransport } from '../../local/adapters/http-invoke-transport.js';

const { values } = parseArgs({
  options: {
    origin: { type: 'string' },
    plan: { type: 'string' },
    sla: { type: 'string' },
    'start-at-epoch-ms': { type: 'string' },
  },
});
const plan = parseLoadPlan(JSON.parse(values.plan ?? '{}'));
const sla = parseSla(JSON.parse(values.sla ?? '{}'));
const transport = createHttpInvokeTransport({
  origin: values.origin ?? '',
  connections: connectionsPerWorker(plan),
  requestTimeoutMs: plan.requestTimeoutMs,
});
const startAt = values['start-at-epoch-ms'];
const worker = await runLoadTest({
  plan,
  sla,
  transport,
  request: { body: new TextEncoder().encode('{"inputs":[1,2,3]}'), contentType: 'application/json' },
  ...(startAt === undefined ? {} : { startAtEpochMs: Number(startAt) }),
});
await transport.close();
console.log(JSON.stringify({ worker, result: aggregateWorkerResults([worker], sla, plan) }));
