import { buildModelArchive } from '../../../../core/deployment/model-archive.js';
import { generateExampleModel } from '../../../../local/example-model/example-model.js';

let exampleArchive: Promise<Uint8Array> | undefined;

/** model.tar.gz of the example model, as the package-model step builds it (built once). */
export function exampleModelArchive(): Promise<Uint8Array> {
  exampleArchive ??= buildModelArchive({ modelFileName: 'model.onnx', modelBytes: generateExampleModel() });
  return exampleArchive;
}

/** model.tar.gz whose model.onnx is not a model: the server cannot load it. */
export function brokenModelArchive(): Promise<Uint8Array> {
  return buildModelArchive({ modelFileName: 'model.onnx', modelBytes: new TextEncoder().encode('not onnx') });
}

/** True while a process with this pid exists (signal 0 only checks). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** Polls `condition` every 50 ms until true, or fails after `timeoutMs` naming `what`. */
export async function waitFor(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
