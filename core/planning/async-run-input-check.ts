import {
  type AsyncEndpointInput,
  type AsyncRunInput,
  asyncRunInputSchemaWith,
  parseOrThrow,
} from '../contracts/index.js';
import type { FieldIssue } from '../contracts/index.js';
import { huggingfaceVersionIssues } from './run-input-check.js';

/**
 * The async run input's rules that consult the catalog: the Hugging Face DLC of the endpoint it
 * deploys must be one of the image table's (run-input-check.ts reads the optimization run's model
 * the same way). `checkedAsyncRunInputSchema` is the floor's schema with them, so one parse reports
 * every issue; the first state, the run API, the schedules' synth check, the CLIs and the client all
 * parse with it.
 */

/** Every issue of these rules in the endpoint to deploy, paths relative to `endpoint`. */
export function catalogAsyncEndpointIssues(endpoint: AsyncEndpointInput): FieldIssue[] {
  return huggingfaceVersionIssues(endpoint);
}

/** The async run input's schema with the rules that consult the catalog. */
export const checkedAsyncRunInputSchema = asyncRunInputSchemaWith(catalogAsyncEndpointIssues);

/** Parses an async run input, or throws `InvalidRunInputError` naming every bad field. */
export function parseAsyncRunInput(data: unknown): AsyncRunInput {
  return parseOrThrow(checkedAsyncRunInputSchema, data);
}
