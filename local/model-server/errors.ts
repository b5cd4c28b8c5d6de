/**
 * Errors of the model server process. They never cross a Step Functions boundary (the local model
 * host turns a failed start into the project's EndpointFailedError), so they live here rather than
 * in core/contracts; each still carries a literal name.
 */
import type { InputIssue } from '../../core/contracts/index.js';

/** A setting (environment variable or option) is invalid; every issue names it. */
export class InvalidServerConfigError extends Error {
  override readonly name = 'InvalidServerConfigError';
  readonly issues: readonly InputIssue[];

  constructor(issues: readonly InputIssue[]) {
    super(
      `Invalid model server configuration: ${issues
        .map((issue) => `${issue.field}: got ${issue.given}, expected ${issue.expected}`)
        .join('; ')}`,
    );
    this.issues = issues;
  }
}

/** The model cannot be loaded, or has a shape this server cannot serve. */
export class UnsupportedModelError extends Error {
  override readonly name = 'UnsupportedModelError';
}

/** Backpressure: the queue of waiting requests is full (HTTP 503). */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}

/** The server is shutting down and accepts no new requests (HTTP 503). */
export class ServerClosingError extends Error {
  override readonly name = 'ServerClosingError';
}

/** An invocation did not finish within its deadline, queueing included (HTTP 504). */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
}

/** The model failed while running a batch (HTTP 500). */
export class ModelExecutionError extends Error {
  override readonly name = 'ModelExecutionError';
}
