import { type AsyncRunOutcome, AsyncRunOutcomes } from '../contracts/index.js';

/** The outcome of a run of `inputs` inputs of which `completed` completed. */
export function asyncRunOutcomeOf(counts: {
  readonly inputs: number;
  readonly completed: number;
}): AsyncRunOutcome {
  if (counts.completed === counts.inputs) return AsyncRunOutcomes.completed;
  return counts.completed === 0 ? AsyncRunOutcomes.allInputsFailed : AsyncRunOutcomes.partial;
}
