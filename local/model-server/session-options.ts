import type { InferenceSession } from 'onnxruntime-node';
import type { WorkerSetup } from './worker-protocol.js';

/**
 * The ONNX Runtime session options of one inference worker. Graph optimizations are off: a
 * compiled candidate is a model local/compiler already optimized offline, and an uncompiled one
 * must run as-is, or the server would erase the difference the benchmark measures. One operator
 * at a time per worker: concurrency comes from the number of workers. Idle intra-op threads sleep
 * unless `spinWait` asks them to spin (the node binding takes session config entries through
 * `extra`, nested by the key's dots, string values only).
 */
export function sessionOptionsOf(
  setup: Pick<WorkerSetup, 'intraOpThreads' | 'spinWait'>,
): InferenceSession.SessionOptions {
  return {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled',
    intraOpNumThreads: setup.intraOpThreads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    extra: { session: { intra_op: { allow_spinning: setup.spinWait ? '1' : '0' } } },
  };
}
