import type {
  AsyncInvocationReceipt,
  AsyncInvocationRequest,
  AsyncInvoker,
  TaskCallOutcome,
  TaskGoneReason,
  TaskResumer,
} from '../../../../core/async/ports.js';
import type { Logger } from '../../../../core/ports/index.js';

/**
 * The in-memory TaskTokenStore with the DynamoDB adapter's conditional semantics: local mode's own
 * store, under the name these tests know it by.
 */
export { MemoryTaskTokenStore as MemoryTokenStore } from '../../../../local/async/memory-task-token-store.js';

export type Resumption =
  | { readonly kind: 'success'; readonly output: Readonly<Record<string, unknown>> }
  | { readonly kind: 'failure'; readonly error: string; readonly cause: string };

/**
 * Step Functions as the notification Lambda sees it: tokens it issued either wait or are over;
 * a call on a token that is over answers `TaskTimedOut`, on one it never issued `InvalidToken`.
 */
export class FakeStepFunctions implements TaskResumer {
  private readonly waiting = new Set<string>();
  private readonly issued = new Set<string>();
  readonly resumptions = new Map<string, Resumption[]>();
  readonly heartbeats: string[] = [];
  private counter = 0;

  /** A fresh token per task attempt, long like real ones (up to 2,048 characters). */
  issueToken(): string {
    this.counter += 1;
    const token = `AQCEAAAAKgAAAA${String(this.counter).padStart(4, '0')}${'x7Qz'.repeat(150)}`;
    this.waiting.add(token);
    this.issued.add(token);
    return token;
  }

  /** The task's wait timed out (or its Lambda failed): the token no longer resumes anything. */
  endTask(token: string): void {
    this.waiting.delete(token);
  }

  isWaiting(token: string): boolean {
    return this.waiting.has(token);
  }

  sendTaskSuccess(taskToken: string, output: Readonly<Record<string, unknown>>): Promise<TaskCallOutcome> {
    return this.resume(taskToken, { kind: 'success', output });
  }

  sendTaskFailure(taskToken: string, error: string, cause: string): Promise<TaskCallOutcome> {
    return this.resume(taskToken, { kind: 'failure', error, cause });
  }

  sendTaskHeartbeat(taskToken: string): Promise<TaskCallOutcome> {
    this.heartbeats.push(taskToken);
    return Promise.resolve(this.waiting.has(taskToken) ? { status: 'delivered' } : this.gone(taskToken));
  }

  private resume(taskToken: string, resumption: Resumption): Promise<TaskCallOutcome> {
    if (!this.waiting.has(taskToken)) return Promise.resolve(this.gone(taskToken));
    this.waiting.delete(taskToken);
    this.resumptions.set(taskToken, [...(this.resumptions.get(taskToken) ?? []), resumption]);
    return Promise.resolve({ status: 'delivered' });
  }

  private gone(taskToken: string): TaskCallOutcome {
    const reason: TaskGoneReason = this.issued.has(taskToken) ? 'TaskTimedOut' : 'InvalidToken';
    return { status: 'task-gone', reason };
  }
}

/** Records each InvokeEndpointAsync request; fails when told to. */
export class FakeAsyncInvoker implements AsyncInvoker {
  readonly requests: AsyncInvocationRequest[] = [];
  failWith: Error | undefined;

  invokeEndpointAsync(request: AsyncInvocationRequest): Promise<AsyncInvocationReceipt> {
    this.requests.push(request);
    if (this.failWith !== undefined) return Promise.reject(this.failWith);
    return Promise.resolve({
      inferenceId: request.inferenceId,
      outputLocation: `s3://mso-async-output/results/${request.inferenceId}.out`,
      failureLocation: `s3://mso-async-output/failures/${request.inferenceId}-error.out`,
    });
  }
}

/** Keeps every log line, serialized as Powertools would write it, to search for secrets. */
export class CapturingLogger implements Logger {
  readonly lines: string[] = [];

  info(message: string, details?: Record<string, unknown>): void {
    this.write('INFO', message, details);
  }
  warn(message: string, details?: Record<string, unknown>): void {
    this.write('WARN', message, details);
  }
  error(message: string, details?: Record<string, unknown>): void {
    this.write('ERROR', message, details);
  }

  private write(level: string, message: string, details: Record<string, unknown> | undefined): void {
    this.lines.push(JSON.stringify({ level, message, ...details }));
  }

  messages(): string[] {
    return this.lines.map((line) => (JSON.parse(line) as { message: string }).message);
  }
}
