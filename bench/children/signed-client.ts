/**
 * The engine (closed model) through the AWS transport, SigV4 and TLS included, against the
 * signed-path stand-in; prints requests, req/s and the process's CPU time over the measured run.
 * The endpoint, region, credentials and trusted certificate come from the environment the bench
 * sets (AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME, AWS_REGION, AWS_ACCESS_KEY_ID/SECRET,
 * NODE_EXTRA_CA_CERTS), so neither configuration below needs a line of bench-specific set-up:
 * - `sdk-defaults`: what a user who never tuned the SDK writes: `new SageMakerRuntimeClient({})`
 *   (its default request handler and retry strategy) and `client.send(new InvokeEndpointCommand(…),
 *   { abortSignal })` per request, outcomes classified as the adapter does;
 * - `engine-tuned`: the load worker's own factory (lambdas/adapters/transport-factory.ts), as
 *   "Run load worker" builds it on AWS.
 */
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { parseArgs } from 'node:util';
import { aggregateWorkerResults, runLoadTest, connectionsPerWorker } from '../../core/load-test/index.js';
import type { InvokeTransport } from '../../core/load-test/index.js';
import { classifyInvokeError, createRuntimeTransportFactory } from '../../lambdas/adapters/index.js';
import { BENCH_ENDPOINT_NAME } from '../support/signed-path.js';
import { parseLoadPlan, parseSla } from '../../core/contracts/index.js';

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    concurrency: { type: 'string' },
    seconds: { type: 'string' },
    'warmup-seconds': { type: 'string' },
  },
});
const concurrency = Number(values.concurrency ?? 32);
const sla = parseSla({ p99LatencyMs: 10_000 });
const request = { body: new TextEncoder().encode('{"inputs":[1,2,3]}'), contentType: 'application/json' };

function transportFor(config: string, plan: ReturnType<typeof parseLoadPlan>): InvokeTransport {
  if (config === 'sdk-defaults') {
    const client = new SageMakerRuntimeClient({});
    return {
      async invoke(invocation, signal) {
        try {
          await client.send(
            new InvokeEndpointCommand({
              EndpointName: BENCH_ENDPOINT_NAME,
              Body: invocation.body,
              ContentType: invocation.contentType,
            }),
            { abortSignal: signal },
          );
          return { kind: 'ok' };
        } catch (error) {
          return classifyInvokeError(error, signal);
        }
      },
    };
  }
  if (config === 'engine-tuned') {
    return createRuntimeTransportFactory()({
      endpointName: BENCH_ENDPOINT_NAME,
      connections: connectionsPerWorker(plan),
      requestTimeoutMs: plan.requestTimeoutMs,
    });
  }
  throw new Error(`--config ${config}: expected sdk-defaults or engine-tuned`);
}

const measured = parseLoadPlan({
  steps: [concurrency],
  warmupSeconds: 0,
  stepDurationSeconds: Number(values.seconds ?? 5),
});
const transport = transportFor(values.config ?? '', measured);
// A first run opens the connections and warms the JIT; the same client then runs the measured one.
await runLoadTest({
  plan: { ...measured, stepDurationSeconds: Number(values['warmup-seconds'] ?? 1) },
  sla,
  transport,
  request,
});
const cpuBefore = process.cpuUsage();
const worker = await runLoadTest({ plan: measured, sla, transport, request });
const cpu = process.cpuUsage(cpuBefore);
const step = aggregateWorkerResults([worker], sla, measured).steps[0];
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const requests = step?.requests ?? 0;
console.log(
  JSON.stringify({
    requests,
    requestsPerSecond: step?.tps ?? 0,
    cpuSeconds,
    requestsPerCpuSecond: requests / cpuSeconds,
    errorRate: step?.errorRate ?? 1,
    errorSamples: step?.errorSamples ?? [],
    p99Ms: step?.latencyMs.p99 ?? 0,
  }),
);
process.exit(0);
