/**
 * The signed AWS path: the engine (closed model, 32 in flight) through the SageMaker Runtime SDK v3
 * transport, SigV4 signing and TLS included, against a loopback HTTPS stand-in of the runtime
 * endpoint that verifies every signature (bench/children/signed-runtime-server.ts). Two client
 * configurations alternate in paired rounds, each in its own process: the SDK's defaults
 * (`new SageMakerRuntimeClient({})`) and the load worker's tuned factory. Figures: signed requests
 * per CPU-second of the client process and req/s, medians of the rounds with min–max, and the
 * median of the paired tuned ÷ defaults ratios. Method and recorded figures: bench/RESULTS.md.
 */
import { Agent } from 'node:https';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { runChild, startChild } from './support/child-process.js';
import { type BenchRow, median } from './support/report.js';
import { createSelfSignedCertificate } from './support/self-signed-cert.js';
import { BENCH_CREDENTIALS, BENCH_ENDPOINT_NAME, BENCH_REGION } from './support/signed-path.js';

const CONCURRENCY = 32;
const SECONDS = 4;
const ROUNDS = 5;
const CONFIGS = ['sdk-defaults', 'engine-tuned'] as const;
type Config = (typeof CONFIGS)[number];

interface ClientRun {
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly cpuSeconds: number;
  readonly requestsPerCpuSecond: number;
  readonly errorRate: number;
  readonly errorSamples: readonly unknown[];
  readonly p99Ms: number;
}

/**
 * One InvokeEndpoint with the bench's key and one with a wrong secret key, from this process:
 * the stand-in must answer the first and refuse the second, else its "no errors" means nothing.
 */
async function probeVerification(
  endpoint: string,
  certPem: string,
): Promise<{ signed: string; wrongKey: string }> {
  const call = async (secretAccessKey: string): Promise<string> => {
    const client = new SageMakerRuntimeClient({
      endpoint,
      region: BENCH_REGION,
      credentials: { accessKeyId: BENCH_CREDENTIALS.accessKeyId, secretAccessKey },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({ httpsAgent: new Agent({ ca: certPem }) }),
    });
    try {
      const output = await client.send(
        new InvokeEndpointCommand({
          EndpointName: BENCH_ENDPOINT_NAME,
          Body: new TextEncoder().encode('{"inputs":[1,2,3]}'),
          ContentType: 'application/json',
        }),
      );
      return `200 ${output.InvokedProductionVariant ?? '?'} ${new TextDecoder().decode(output.Body)}`;
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      return `${status ?? 'no status'} ${(error as Error).name}`;
    } finally {
      client.destroy();
    }
  };
  return {
    signed: await call(BENCH_CREDENTIALS.secretAccessKey),
    wrongKey: await call(`${BENCH_CREDENTIALS.secretAccessKey.slice(0, -1)}X`),
  };
}

function spread(values: readonly number[], digits = 0): string {
  return `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
}

export async function benchSignedPath(): Promise<BenchRow> {
  const certDir = await mkdtemp(join(tmpdir(), 'signed-path-'));
  const { certPem, keyPem } = createSelfSignedCertificate('127.0.0.1');
  await writeFile(join(certDir, 'cert.pem'), certPem);
  await writeFile(join(certDir, 'key.pem'), keyPem, { mode: 0o600 });
  const server = startChild('signed-runtime-server.ts', ['--cert-dir', certDir]);
  const loadAverageAtStart = loadavg();
  try {
    const { port } = await server.nextMessage<{ port: number }>();
    const endpoint = `https://127.0.0.1:${port}`;
    const probe = await probeVerification(endpoint, certPem);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME: endpoint,
      AWS_REGION: BENCH_REGION,
      AWS_ACCESS_KEY_ID: BENCH_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: BENCH_CREDENTIALS.secretAccessKey,
      NODE_EXTRA_CA_CERTS: join(certDir, 'cert.pem'),
      AWS_PROFILE: undefined,
      AWS_SESSION_TOKEN: undefined,
      // The SDK's notice that its 2027 releases need Node 22, printed by every child otherwise.
      NODE_NO_WARNINGS: '1',
    };
    const runs: Record<Config, ClientRun[]> = { 'sdk-defaults': [], 'engine-tuned': [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which configuration goes first, so neither always runs on a warmer machine.
      const order = round % 2 === 0 ? CONFIGS : [...CONFIGS].reverse();
      for (const config of order) {
        runs[config].push(
          await runChild<ClientRun>(
            'signed-client.ts',
            ['--config', config, '--concurrency', String(CONCURRENCY), '--seconds', String(SECONDS)],
            env,
          ),
        );
      }
    }
    const perCpu = (config: Config): number[] => runs[config].map((run) => run.requestsPerCpuSecond);
    const tps = (config: Config): number[] => runs[config].map((run) => run.requestsPerSecond);
    const pairedCpuRatios = perCpu('engine-tuned').map(
      (value, round) => value / (perCpu('sdk-defaults')[round] ?? Number.NaN),
    );
    const pairedTpsRatios = tps('engine-tuned').map(
      (value, round) => value / (tps('sdk-defaults')[round] ?? Number.NaN),
    );
    const errors = CONFIGS.flatMap((config) => runs[config].filter((run) => run.errorRate > 0));
    const verified = probe.signed.startsWith('200 ') && probe.wrongKey === '403 InvalidSignatureException';
    const ratio = median(pairedCpuRatios);
    const describe = (config: Config): string =>
      `${config} ${Math.round(median(perCpu(config)))} (${spread(perCpu(config))}) signed req/CPU-s, ` +
      `${Math.round(median(tps(config)))} (${spread(tps(config))}) req/s`;
    return {
      name: 'signed AWS path (SigV4 + TLS)',
      goal: 'tuned >= SDK defaults per CPU-s, 0 errors, bad signature refused',
      measured:
        `${describe('engine-tuned')} vs ${describe('sdk-defaults')}; tuned ÷ defaults ${ratio.toFixed(2)}× per CPU-s ` +
        `(pairs ${spread(pairedCpuRatios, 2)}), ${median(pairedTpsRatios).toFixed(2)}× req/s; ${CONCURRENCY} in flight, ` +
        `median of ${ROUNDS} paired rounds`,
      pass: verified && errors.length === 0 && ratio >= 1,
      details: {
        concurrency: CONCURRENCY,
        seconds: SECONDS,
        probe,
        runs,
        pairedCpuRatios: pairedCpuRatios.map((value) => Number(value.toFixed(3))),
        pairedTpsRatios: pairedTpsRatios.map((value) => Number(value.toFixed(3))),
        loadAverageAtStart,
        loadAverageAtEnd: loadavg(),
      },
    };
  } finally {
    await server.stop();
    await rm(certDir, { recursive: true, force: true });
  }
}

// `node --import tsx bench/signed-path.ts` runs this bench alone.
if (import.meta.url === `file://${process.argv[1] ?? ''}`) {
  const row = await benchSignedPath();
  console.log(`${row.pass ? 'ok  ' : 'FAIL'} ${row.name}: ${row.measured}`);
  console.log(JSON.stringify(row.details, null, 2));
  if (!row.pass) process.exitCode = 1;
}
