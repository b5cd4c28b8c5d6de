import { truncateMessage } from '../error-samples.js';
import type { FailureEvent } from './stream-events.js';
import type { StreamFormat } from '../../contracts/index.js';

export type JsonObject = Readonly<Record<string, unknown>>;

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The event's JSON object, or undefined when it is not JSON or not an object. */
export function parseJsonObject(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Characters of an unreadable event quoted in its failure message. */
const QUOTED_EVENT_CHARS = 200;

export const FORMAT_LABELS: Readonly<Record<StreamFormat, string>> = {
  openai: 'OpenAI-compatible',
  tgi: 'TGI',
  'lmi-jsonlines': 'LMI JSON Lines',
  'lmi-sse': 'LMI SSE',
};

/** An event the format cannot read: what came, what was expected, and what to check. */
export function malformed(format: StreamFormat, event: string, expected: string): FailureEvent {
  const label = FORMAT_LABELS[format];
  return {
    kind: 'failure',
    failure: {
      reason: 'malformed',
      message:
        `unreadable ${label} stream event: got ${JSON.stringify(truncateMessage(event, QUOTED_EVENT_CHARS))}, ` +
        `expected ${expected}; check that the run's stream format matches the container's output`,
    },
  };
}

/** The server reported an error inside a stream it had already answered 200 to. */
export function modelError(format: StreamFormat, detail: string): FailureEvent {
  return {
    kind: 'failure',
    failure: {
      reason: 'model-error',
      message: `${FORMAT_LABELS[format]} stream error: ${truncateMessage(detail)}`,
    },
  };
}

/** A count the server reported, when it is one (a non-negative integer). */
export function countOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
