import { jsonBytes, STEP_FUNCTIONS_QUOTAS } from '../contracts/index.js';
import type { LoadTestResult, PayloadStepResult, StepResult } from './results.js';

/**
 * Step Functions caps a state's input and output at 256 KiB of UTF-8 (STEP_FUNCTIONS_QUOTAS). Larger
 * results go to the object store and travel as a pointer; the caller does the storing.
 */
export const STATE_PAYLOAD_LIMIT_BYTES = STEP_FUNCTIONS_QUOTAS.maxPayloadBytes;

/** The compact (unindented) JSON form in which results travel between states. */
export function toCompactJson(value: unknown): string {
  return JSON.stringify(value);
}

/** Size in bytes of the compact JSON form, as Step Functions counts it (UTF-8). */
export function serializedSizeBytes(value: unknown): number {
  return jsonBytes(value);
}

/**
 * Whether `value` fits in a state payload next to `reservedBytes` of other state (the rest of the
 * execution's JSON that travels with it).
 */
export function fitsInStatePayload(value: unknown, reservedBytes = 0): boolean {
  return serializedSizeBytes(value) + reservedBytes <= STATE_PAYLOAD_LIMIT_BYTES;
}

type StateStep = Omit<StepResult, 'histogram' | 'errorSamples' | 'payloads'> & {
  payloads?: Omit<PayloadStepResult, 'histogram'>[];
};

/**
 * The result without its bulky parts (encoded histograms, each payload's too, error samples): what
 * stays in the state beside the pointer when the full result is stored elsewhere.
 */
export function summarizeForState(
  result: LoadTestResult,
): Omit<LoadTestResult, 'steps'> & { steps: StateStep[] } {
  return {
    ...result,
    steps: result.steps.map(({ histogram: _histogram, errorSamples: _samples, payloads, ...rest }) => ({
      ...rest,
      ...(payloads === undefined
        ? {}
        : { payloads: payloads.map(({ histogram: _payloadHistogram, ...figures }) => figures) }),
    })),
  };
}
