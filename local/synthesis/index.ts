/**
 * The synthesized workflows local mode runs: the state machines of the stack `cdk synth` deploys,
 * read from a cache kept per change of the sources (`synthesis-cache.ts`). `synthesizeWorkflows`
 * itself is not exported: it loads aws-cdk-lib, which a reader of the cache never does; only the
 * cache's writer (`write-synthesized-workflows.ts`, in this room) runs it.
 */
export type { CachedSynthesisOptions } from './synthesis-cache.js';
export { cachedSynthesizedWorkflows } from './synthesis-cache.js';
export type { SynthesizedWorkflows } from './synthesized-workflows.js';
