import type { AsyncRunSummary, ItemResult } from '../../../../core/contracts/async-state.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from '@jest/globals';
import {
  createLocalAsyncEnvironment,
  type LocalAsyncEnvironment,
  type LocalAsyncEnvironmentOptions,
} from '../../../../local/environment/async-environment.js';
import { exampleInput } from '../../../../local/cli/async/example-inputs.js';
import { silentLogger } from '../../../support/memory-object-store.js';
import { synthesizedWorkflows, type SynthesizedWorkflows } from '../../../support/synthesized-workflows.js';
import { exampleModelArchive } from '../../platform/support/model-artifacts.js';

/** What the tests of whole local async runs share. */

/** Samples of the example model, concatenated (the model server's application/octet-stream). */
export function samples(count: number): Uint8Array {
  const parts = Array.from({ length: count }, (_, index) => exampleInput(index));
  const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.byteLength;
  }
  return joined;
}

/** The per-input results of a run, read from the summary object it wrote. */
export async function itemsOf(env: LocalAsyncEnvironment, summary: AsyncRunSummary): Promise<ItemResult[]> {
  const document = JSON.parse(new TextDecoder().decode(await env.store.getBytes(summary.summaryUri))) as {
    items: ItemResult[];
  };
  return document.items;
}

/** One folder per test under a temporary directory, each with its own local async environment. */
export interface LocalAsyncSandbox {
  /** The synthesized workflows (read before the suite's tests). */
  readonly workflows: SynthesizedWorkflows;
  /** The suite's temporary directory. */
  readonly dir: string;
  /** A new environment in the folder `name`, with the example model at `modelUri`; closed after the test. */
  prepare(
    name: string,
    options?: Pick<LocalAsyncEnvironmentOptions, 'lostNotificationAfterMs'>,
  ): Promise<LocalAsyncEnvironment>;
  /** Closes the test's environment now (it is closed after the test otherwise). */
  closeCurrent(): Promise<void>;
}

/**
 * The set-up the suites of whole local async runs share: the synthesized workflows and a temporary
 * directory before the suite, each test's environment closed after it, the directory removed after
 * the suite. Registers its hooks with jest where it is called (a describe block or the file).
 */
export function localAsyncSandbox(prefix: string, modelUri: string): LocalAsyncSandbox {
  let workflows: SynthesizedWorkflows | undefined;
  let dir: string | undefined;
  let environment: LocalAsyncEnvironment | undefined;
  const closeCurrent = async (): Promise<void> => {
    await environment?.close();
    environment = undefined;
  };
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    workflows = synthesizedWorkflows();
  }, 120_000);
  afterEach(closeCurrent);
  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`localAsyncSandbox: ${what} is read before the suite's beforeAll`);
    return value;
  };
  return {
    get workflows() {
      return ready(workflows, 'workflows');
    },
    get dir() {
      return ready(dir, 'dir');
    },
    async prepare(name, options = {}) {
      const root = ready(dir, 'dir');
      environment = createLocalAsyncEnvironment({
        storeDir: join(root, name, 'store'),
        runsDir: join(root, name, 'runs'),
        logger: silentLogger,
        availableCpus: 2,
        waitTimeoutSeconds: ready(workflows, 'workflows').asyncWaitTimeoutSeconds,
        ...options,
      });
      await environment.store.putBytes(modelUri, await exampleModelArchive());
      return environment;
    },
    closeCurrent,
  };
}
