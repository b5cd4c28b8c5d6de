import type { InvokeErrorKind } from './ports.js';
import type { ErrorCounts, ErrorSample } from './results.js';

/** Samples kept per error kind per step: enough to explain, few enough to stay small. */
export const SAMPLES_PER_KIND = 3;
/** Characters of an error message (or response body) kept in a sample. */
export const MAX_SAMPLE_MESSAGE_CHARS = 300;

/** Cuts a message to `maxChars`, saying how much was cut. */
export function truncateMessage(message: string, maxChars: number = MAX_SAMPLE_MESSAGE_CHARS): string {
  if (message.length <= maxChars) return message;
  return `${message.slice(0, maxChars)}… (${message.length - maxChars} more characters)`;
}

export function errorCountKey(kind: InvokeErrorKind): keyof ErrorCounts {
  switch (kind) {
    case 'model-error':
      return 'modelError';
    case 'throttled':
      return 'throttled';
    case 'timeout':
      return 'timeout';
    case 'client-error':
      return 'clientError';
  }
}

/** Keeps the first SAMPLES_PER_KIND samples of each kind, in arrival order. */
export class ErrorSampleKeeper {
  private readonly kept: ErrorSample[] = [];
  private readonly perKind = new Map<InvokeErrorKind, number>();

  offer(sample: ErrorSample): void {
    const count = this.perKind.get(sample.kind) ?? 0;
    if (count >= SAMPLES_PER_KIND) return;
    this.perKind.set(sample.kind, count + 1);
    const message = truncateMessage(sample.message);
    this.kept.push(
      sample.statusCode === undefined
        ? { kind: sample.kind, message }
        : { kind: sample.kind, statusCode: sample.statusCode, message },
    );
  }

  samples(): ErrorSample[] {
    return [...this.kept];
  }
}

/** The first SAMPLES_PER_KIND samples of each kind over several parts (workers, segments), in order. */
export function mergeErrorSamples(
  parts: readonly { readonly errorSamples: readonly ErrorSample[] }[],
): ErrorSample[] {
  const kept: ErrorSample[] = [];
  const perKind = new Map<ErrorSample['kind'], number>();
  for (const sample of parts.flatMap((part) => part.errorSamples)) {
    const count = perKind.get(sample.kind) ?? 0;
    if (count >= SAMPLES_PER_KIND) continue;
    perKind.set(sample.kind, count + 1);
    kept.push(sample);
  }
  return kept;
}
