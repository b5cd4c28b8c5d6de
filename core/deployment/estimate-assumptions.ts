import { LOAD_WORKER_MEMORY_MB } from '../contracts/index.js';

/**
 * What both workflows' estimates assume of an endpoint ("Validate and plan" and "Validate async
 * run"). Billing runs from endpoint creation to deletion; creating an endpoint typically takes 5–10
 * minutes and deleting it about one. The estimate assumes the slow end so the budget guard errs on
 * the side of refusing.
 */
export const ESTIMATE_ASSUMPTIONS = {
  provisioningSeconds: 600,
  teardownSeconds: 120,
  loadGeneratorMemoryGb: LOAD_WORKER_MEMORY_MB / 1024,
} as const;
