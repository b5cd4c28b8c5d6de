/**
 * The local task-token store: in memory, with the DynamoDB adapter's conditional semantics
 * (`lambdas/adapters/dynamodb-token-store.ts`):
 *
 * - `putIfAbsent`: stores unless a record has the id (`attribute_not_exists(inferenceId)`), else
 *   returns the existing record;
 * - `replace`: overwrites on condition that the record still holds the previous token, or, for a
 *   tombstone, that it still exists without one;
 * - `consumeToken`: removes the token and stamps the resume time, on condition of the token,
 *   keeping the record as a tombstone;
 * - `deleteIfToken`: deletes on condition of the token;
 * - `recordReceipt`: adds the invocation's output and failure locations, on condition of the token.
 *
 * In memory rather than in a file, on purpose: the tokens are issued by the runner's in-process
 * `TaskTokenBroker` and resume nothing once this process ends, so a file would only keep dead
 * tokens (secrets) on disk. A local run is one process: the CLI, the runner, the endpoint and the
 * notification handler. Like DynamoDB's TTL, `expiresAtEpochSeconds` does not hide a record from
 * reads (DynamoDB deletes expired items some time later); a local run ends long before it matters.
 */
import type {
  AsyncInvocationReceipt,
  ConditionalOutcome,
  NewTaskTokenRecord,
  PutOutcome,
  TaskTokenRecord,
  TaskTokenStore,
} from '../../core/async/index.js';

const DONE: ConditionalOutcome = { status: 'done' };
const CHANGED: ConditionalOutcome = { status: 'changed' };

export class MemoryTaskTokenStore implements TaskTokenStore {
  /** The records by inference id; tests read and write it to stage races. */
  readonly records = new Map<string, TaskTokenRecord>();

  putIfAbsent(record: NewTaskTokenRecord): Promise<PutOutcome> {
    const existing = this.records.get(record.inferenceId);
    if (existing !== undefined) return Promise.resolve({ status: 'exists', existing });
    this.records.set(record.inferenceId, { ...record });
    return Promise.resolve({ status: 'stored' });
  }

  replace(record: NewTaskTokenRecord, previous: TaskTokenRecord): Promise<ConditionalOutcome> {
    const current = this.records.get(record.inferenceId);
    if (current === undefined || current.taskToken !== previous.taskToken) return Promise.resolve(CHANGED);
    this.records.set(record.inferenceId, { ...record });
    return Promise.resolve(DONE);
  }

  get(inferenceId: string): Promise<TaskTokenRecord | undefined> {
    const record = this.records.get(inferenceId);
    // A copy, as a read from DynamoDB is: the caller cannot change the stored record.
    return Promise.resolve(record === undefined ? undefined : { ...record });
  }

  consumeToken(
    inferenceId: string,
    taskToken: string,
    resumedAtEpochMs: number,
  ): Promise<ConditionalOutcome> {
    const current = this.records.get(inferenceId);
    if (current?.taskToken === undefined || current.taskToken !== taskToken) return Promise.resolve(CHANGED);
    const { taskToken: _removed, ...tombstone } = current;
    this.records.set(inferenceId, { ...tombstone, resumedAtEpochMs });
    return Promise.resolve(DONE);
  }

  deleteIfToken(inferenceId: string, taskToken: string): Promise<ConditionalOutcome> {
    const current = this.records.get(inferenceId);
    if (current?.taskToken === undefined || current.taskToken !== taskToken) return Promise.resolve(CHANGED);
    this.records.delete(inferenceId);
    return Promise.resolve(DONE);
  }

  recordReceipt(
    inferenceId: string,
    taskToken: string,
    receipt: AsyncInvocationReceipt,
  ): Promise<ConditionalOutcome> {
    const current = this.records.get(inferenceId);
    if (current?.taskToken === undefined || current.taskToken !== taskToken) return Promise.resolve(CHANGED);
    this.records.set(inferenceId, {
      ...current,
      outputLocation: receipt.outputLocation,
      ...(receipt.failureLocation === undefined ? {} : { failureLocation: receipt.failureLocation }),
    });
    return Promise.resolve(DONE);
  }

  async *listWaiting(): AsyncIterable<NewTaskTokenRecord> {
    // One page read at once, as a Scan reads one: records written meanwhile are not visited.
    const page = await Promise.resolve([...this.records.values()]);
    for (const record of page) {
      if (record.taskToken !== undefined) yield { ...record, taskToken: record.taskToken };
    }
  }
}
