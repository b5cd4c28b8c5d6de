import type { AsyncRunSummary, ItemResult } from '../../../../handlers/contracts/async-state.js';
import type { LocalAsyncEnvironment } from '../../../../local/async/environment.js';
import { exampleInput } from '../../../../local/async/example-inputs.js';

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
