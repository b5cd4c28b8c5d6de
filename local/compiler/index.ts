/**
 * What other rooms import from local/compiler/: they enter the room here, never by one of its modules
 * (test/architecture.test.ts).
 */
import type { CompileModelInput, CompileModelResult } from './compile-model.js';

export type { CompileModelInput, CompileModelResult } from './compile-model.js';
export { isCompilationTarget } from './compile-targets.js';

/**
 * `compileModel`, loaded on its first call: ONNX Runtime's native binding then loads into a process
 * only when a job runs, not in every process that builds the local environments (the async CLI, a
 * `--plan` run) or only asks which targets exist.
 */
export async function compileModel(input: CompileModelInput): Promise<CompileModelResult> {
  const { compileModel: compile } = await import('./compile-model.js');
  return compile(input);
}
