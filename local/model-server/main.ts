/**
 * Container entry point: `serve` starts the model server configured by environment variables
 * (MODEL_SERVER_ENV in server-options.ts, documented in README.md): the generative server when the
 * model is a generative model's decoding step (generative/generative-server.ts), else the vision
 * server. SageMaker runs the image as
 * `docker run <image> serve`; the local model host runs `npx tsx local/model-server/main.ts serve`.
 *
 * Once listening, it prints one JSON line to stdout, `{"event":"listening","port":...,"url":...}`,
 * so a parent that asked for port 0 learns the port. Logs and errors go to stderr as JSON lines.
 * SIGTERM/SIGINT: refuse new requests, answer accepted ones, exit 0.
 */
import { describeError } from '../../core/contracts/index.js';
import {
  isGenerativeModelFile,
  readGenerateFormatFromEnv,
  startGenerativeServer,
} from './generative/generative-server.js';
import { findModelFile } from './model-location.js';
import { startModelServer } from './model-server.js';
import { readServerOptionsFromEnv } from './server-options.js';
import type { ModelServerOptions } from './server-options.js';

const EXIT_USAGE = 2;
const EXIT_START_FAILED = 1;

function log(event: string, fields: Record<string, unknown> = {}): void {
  process.stderr.write(`${JSON.stringify({ event, ...fields })}\n`);
}

async function main(args: readonly string[]): Promise<void> {
  if (args[0] !== 'serve') {
    log('usage', {
      error: `Got arguments [${args.join(' ')}], expected "serve" (SageMaker starts containers with \`docker run <image> serve\`)`,
    });
    process.exitCode = EXIT_USAGE;
    return;
  }
  let server: StartedServer;
  try {
    server = await start(readServerOptionsFromEnv(process.env));
  } catch (error) {
    log('start-failed', { error: describeError(error) });
    process.exitCode = EXIT_START_FAILED;
    return;
  }
  const { port, url } = server;
  process.stdout.write(`${JSON.stringify({ event: 'listening', port, url })}\n`);
  log('started', server.started);

  const shutdown = (signal: NodeJS.Signals) => {
    log('shutting-down', { signal });
    server.close().then(
      () => {
        log('stopped', { metrics: server.metrics() });
      },
      (error: unknown) => {
        log('shutdown-failed', { error: describeError(error) });
        process.exitCode = EXIT_START_FAILED;
      },
    );
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

interface StartedServer {
  readonly port: number;
  readonly url: string;
  /** What the `started` log line says about the server. */
  readonly started: Record<string, unknown>;
  metrics(): unknown;
  close(): Promise<void>;
}

async function start(options: ModelServerOptions): Promise<StartedServer> {
  const modelPath = await findModelFile(options.modelDir);
  if (await isGenerativeModelFile(modelPath)) {
    const generateFormat = readGenerateFormatFromEnv(process.env);
    const server = await startGenerativeServer(modelPath, { ...options, generateFormat });
    return { ...server, started: { modelPath, kind: 'generative', options: server.options } };
  }
  const server = await startModelServer(options);
  return { ...server, started: { modelPath, signature: server.signature, options: server.options } };
}

await main(process.argv.slice(2));
