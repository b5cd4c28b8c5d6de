import { pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
/**
 * A fixed set of inference worker threads, each with its own ONNX Runtime session.
 *
 * Why worker threads and not several sessions in the main thread: onnxruntime-node's
 * `session.run()` returns a promise but runs the model synchronously on the calling JS thread
 * (its backend wraps the native call in `setImmediate`, see node_modules/onnxruntime-node/dist/
 * backend.js). Measured on the example model (1 intra-op thread, 2-core machine shared with other
 * jobs): two sessions in the main thread served two concurrent streams no faster than one session
 * (228 vs 240 inferences/s) and blocked the HTTP event loop during each inference; two worker
 * threads served 321/s and kept the event loop free, so /ping answers while models run
 * (local/model-server/README.md has the figures).
 */
import { Worker } from 'node:worker_threads';

import { ModelExecutionError, UnsupportedModelError } from './errors.js';
import type { ModelSignature } from './model-signature.js';
import type { RunRequest, WorkerReply, WorkerSetup } from './worker-protocol.js';
import { disableOnnxRuntimeTelemetry } from './onnx-runtime-telemetry.js';

/** Output of one batch: the model's first output for all samples, and its shape. */
export interface BatchOutput {
  readonly output: Float32Array;
  readonly dims: readonly number[];
}

/** What the scheduler needs from a pool; a fake implements it in unit tests. */
export interface BatchRunner {
  readonly idleWorkers: number;
  run(input: Float32Array, batchSize: number): Promise<BatchOutput>;
}

// Loading tsx and ONNX Runtime plus a small model takes well under a second; a worker silent for
// this long is stuck, and failing the start beats a container that never answers /ping.
const WORKER_START_TIMEOUT_MS = 120_000;

interface PendingRun {
  readonly id: number;
  readonly resolve: (output: BatchOutput) => void;
  readonly reject: (error: Error) => void;
}

interface WorkerSlot {
  readonly worker: Worker;
  alive: boolean;
  pending: PendingRun | undefined;
}

export class InferenceWorkerPool implements BatchRunner {
  private nextRunId = 1;

  private constructor(
    private readonly slots: readonly WorkerSlot[],
    readonly signature: ModelSignature,
  ) {
    for (const slot of slots) this.watch(slot);
  }

  /** Starts `count` workers and resolves once every one has loaded the model. */
  static async start(setup: WorkerSetup, count: number): Promise<InferenceWorkerPool> {
    const workers = Array.from({ length: count }, () => spawnInferenceWorker(setup));
    const started = await Promise.allSettled(workers.map((worker) => waitUntilReady(worker, setup)));
    const failure = started.find((result) => result.status === 'rejected');
    const [first] = started;
    if (failure !== undefined || first?.status !== 'fulfilled') {
      await Promise.all(workers.map((worker) => worker.terminate()));
      throw failure?.reason instanceof Error
        ? failure.reason
        : new UnsupportedModelError(`No inference worker started for ${setup.modelPath}`);
    }
    const slots = workers.map((worker) => ({ worker, alive: true, pending: undefined }));
    return new InferenceWorkerPool(slots, first.value);
  }

  get idleWorkers(): number {
    return this.slots.filter((slot) => slot.alive && slot.pending === undefined).length;
  }

  get liveWorkers(): number {
    return this.slots.filter((slot) => slot.alive).length;
  }

  /** Runs one batch on an idle worker; the caller checks `idleWorkers` first. */
  run(input: Float32Array, batchSize: number): Promise<BatchOutput> {
    const slot = this.slots.find((candidate) => candidate.alive && candidate.pending === undefined);
    if (slot === undefined) {
      return Promise.reject(
        new ModelExecutionError('No idle inference worker: the scheduler over-dispatched'),
      );
    }
    const id = this.nextRunId++;
    // Transfer the buffer rather than copy it, unless the array is a view on a larger buffer.
    const ownsBuffer = input.byteOffset === 0 && input.byteLength === input.buffer.byteLength;
    const message = ownsBuffer ? input : input.slice();
    return new Promise<BatchOutput>((resolve, reject) => {
      slot.pending = { id, resolve, reject };
      const request: RunRequest = { type: 'run', id, input: message, batchSize };
      slot.worker.postMessage(request, [message.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    for (const slot of this.slots) slot.alive = false;
    await Promise.all(this.slots.map((slot) => slot.worker.terminate()));
  }

  private watch(slot: WorkerSlot): void {
    slot.worker.on('message', (message: WorkerReply) => {
      const pending = slot.pending;
      if (pending === undefined) return;
      if (message.type === 'result' && message.id === pending.id) {
        slot.pending = undefined;
        pending.resolve({ output: message.output, dims: message.dims });
      } else if (message.type === 'run-failed' && message.id === pending.id) {
        slot.pending = undefined;
        pending.reject(new ModelExecutionError(`The model failed: ${message.message}`));
      }
    });
    // A worker only dies on a bug or a native crash: its batch fails and it leaves the pool, so
    // /ping turns unhealthy once none is left (SageMaker then replaces the instance).
    const retire = (reason: string) => {
      if (!slot.alive) return;
      slot.alive = false;
      const pending = slot.pending;
      slot.pending = undefined;
      pending?.reject(new ModelExecutionError(`Inference worker stopped: ${reason}`));
    };
    slot.worker.on('error', (error) => {
      retire(error.message);
    });
    slot.worker.on('exit', (code) => {
      retire(`exit code ${code}`);
    });
  }
}

/**
 * The worker's entry module sits next to this file. Run from TypeScript sources (tsx, jest), the
 * worker thread does not inherit a TypeScript loader, so a small bootstrap registers tsx's ESM hooks
 * in the thread before importing the worker module.
 */
function spawnInferenceWorker(setup: WorkerSetup): Worker {
  return spawnWorkerModule('./inference-worker', setup);
}

/**
 * Starts a worker thread on a module of the model server, given relative to this file without its
 * extension (e.g. `./generative/step-worker`), from TypeScript sources or compiled JavaScript.
 */
export function spawnWorkerModule(modulePath: string, workerData: unknown): Worker {
  // Every session of the server starts in a worker: the main thread's environment is what the
  // runtime reads there.
  disableOnnxRuntimeTelemetry();
  const runningFromTypeScript = import.meta.url.endsWith('.ts');
  const workerModule = new URL(`${modulePath}${runningFromTypeScript ? '.ts' : '.js'}`, import.meta.url).href;
  const load = `import(${JSON.stringify(workerModule)})`;
  const bootstrap = runningFromTypeScript
    ? `import(${JSON.stringify(tsxEsmApiUrl())}).then((tsx) => { tsx.register(); return ${load}; });`
    : `${load};`;
  return new Worker(bootstrap, { eval: true, workerData, stdout: false, stderr: false });
}

/**
 * The file URL of tsx's ESM hooks API, read from tsx's own exports map: `import.meta.resolve` is
 * missing under jest 29, and tsx's CommonJS build of this API cannot find its loader from a worker.
 */
function tsxEsmApiUrl(): string {
  const packageJsonPath = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(packageJsonPath, 'utf8')) as {
    exports: Record<string, { import?: { default?: string } }>;
  };
  const entry = exports['./esm/api']?.import?.default;
  if (entry === undefined) throw new Error(`tsx at ${packageJsonPath} exports no ./esm/api for import`);
  return pathToFileURL(join(dirname(packageJsonPath), entry)).href;
}

function waitUntilReady(worker: Worker, setup: WorkerSetup): Promise<ModelSignature> {
  return waitForWorkerLoad(worker, {
    name: 'Inference worker',
    modelPath: setup.modelPath,
    readyOf: (reply: WorkerReply) => (reply.type === 'ready' ? reply.signature : undefined),
  });
}

/** Who is starting (for the messages), the model it loads, and the value its `ready` reply carries. */
interface WorkerLoad<Ready> {
  readonly name: string;
  readonly modelPath: string;
  /** A method, so a caller may take its own reply type. */
  readyOf(reply: { readonly type: string }): Ready | undefined;
}

function isLoadFailed(message: { readonly type: string }): message is LoadFailedReply {
  return message.type === 'load-failed';
}

/** A worker's answer to its setup when the model cannot be loaded. */
interface LoadFailedReply {
  readonly type: 'load-failed';
  readonly errorName: string;
  readonly message: string;
}

/**
 * Waits for a freshly spawned worker to load its model: the value `readyOf` finds in its `ready`
 * reply, or `UnsupportedModelError` when it reports `load-failed`, fails, exits or says nothing
 * within WORKER_START_TIMEOUT_MS. Listeners and the timer are removed whichever comes first. The
 * inference pool and the generative server's decoding worker start the same way.
 */
export function waitForWorkerLoad<Ready>(worker: Worker, what: WorkerLoad<Ready>): Promise<Ready> {
  const { name, modelPath } = what;
  return new Promise<Ready>((resolve, reject) => {
    const timer = setTimeout(() => {
      settle(() => {
        reject(
          new UnsupportedModelError(`${name} did not load ${modelPath} within ${WORKER_START_TIMEOUT_MS} ms`),
        );
      });
    }, WORKER_START_TIMEOUT_MS);
    const onMessage = (message: { readonly type: string }) => {
      if (isLoadFailed(message)) {
        settle(() => {
          reject(
            new UnsupportedModelError(
              `Cannot serve model ${modelPath}: ${message.errorName}: ${message.message}`,
            ),
          );
        });
        return;
      }
      const ready = what.readyOf(message);
      if (ready !== undefined) {
        settle(() => {
          resolve(ready);
        });
      }
    };
    const onError = (error: Error) => {
      settle(() => {
        reject(
          new UnsupportedModelError(`${name} for ${modelPath} failed to start: ${error.message}`, {
            cause: error,
          }),
        );
      });
    };
    const onExit = (code: number) => {
      settle(() => {
        reject(new UnsupportedModelError(`${name} exited during start-up with code ${code}`));
      });
    };
    function settle(action: () => void) {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      action();
    }
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}
