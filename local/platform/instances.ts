/**
 * An instance of a local async endpoint: one model-server process that implements the SageMaker
 * container contract (`GET /ping`, `POST /invocations`). The endpoint starts and stops instances
 * through an `InstanceLauncher`; local mode's launcher starts the project's model server
 * (`ModelServerProcess`), tests may start a smaller process that keeps the same contract.
 */
import { ModelServerProcess } from './model-server-process.js';

export interface AsyncInstance {
  readonly pid: number | undefined;
  /** Resolves with the server's origin once it answers `/ping`; rejects with why it did not. */
  readonly ready: Promise<string>;
  /** Resolves when the process has exited, whatever the reason, with a description of the exit. */
  readonly exited: Promise<string>;
  /** Graceful stop (SIGTERM, then SIGKILL after a grace period); resolves once exited. */
  stop(): Promise<void>;
  /** Immediate and synchronous, for a forced exit. */
  kill(): void;
}

/** Starts one instance; `instanceId` is for logs. */
export type InstanceLauncher = (instanceId: string) => AsyncInstance;

export interface ModelServerLauncherOptions {
  /** The extracted model (shared read-only by the endpoint's instances). */
  readonly modelDir: string;
  /** The container environment, CPU plan included. */
  readonly environment: Readonly<Record<string, string>>;
  readonly startTimeoutMs: number;
  readonly stopGraceMs: number;
}

/** Each instance is a `local/model-server` process, started as the local model host starts one. */
export function modelServerLauncher(options: ModelServerLauncherOptions): InstanceLauncher {
  return () => {
    const server = ModelServerProcess.start({
      modelDir: options.modelDir,
      environment: options.environment,
      startTimeoutMs: options.startTimeoutMs,
    });
    return {
      pid: server.pid,
      ready: server.ready.then(({ url }) => url),
      exited: server.exited.then((exit) => server.describeExit(exit)),
      stop: async () => {
        await server.stop(options.stopGraceMs);
      },
      kill: () => {
        server.kill();
      },
    };
  };
}
