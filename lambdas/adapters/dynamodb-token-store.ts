import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  type ScanCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { RequestRefusedError, TransientServiceError, TOKEN_TABLE_KEYS } from '../../core/contracts/index.js';
import type {
  AsyncInvocationReceipt,
  ConditionalOutcome,
  NewTaskTokenRecord,
  PutOutcome,
  TaskTokenRecord,
  TaskTokenStore,
} from '../../core/async/index.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

export interface DynamoDbTokenStoreOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
}

/** The task-token table's items (core/contracts/task-token-table.ts), over DynamoDB's document client. */
export class DynamoDbTokenStore implements TaskTokenStore {
  private readonly client: DynamoDBDocumentClient;
  private readonly tableName: string;

  constructor(options: DynamoDbTokenStoreOptions) {
    this.client = options.client;
    this.tableName = options.tableName;
  }

  async putIfAbsent(record: NewTaskTokenRecord): Promise<PutOutcome> {
    // Twice at most: the existing record can vanish between the put and the read (TTL, clean-up).
    for (let attempt = 1; ; attempt += 1) {
      const outcome = await this.conditional('PutItem', record.inferenceId, () =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: toItem(record),
            ConditionExpression: 'attribute_not_exists(inferenceId)',
          }),
        ),
      );
      if (outcome.status === 'done') return { status: 'stored' };
      const existing = await this.get(record.inferenceId);
      if (existing !== undefined) return { status: 'exists', existing };
      if (attempt === 2) {
        throw new TransientServiceError(
          `DynamoDB PutItem for inference ${record.inferenceId}: the record kept appearing and vanishing, expected it to settle`,
          { inferenceId: record.inferenceId },
        );
      }
    }
  }

  replace(record: NewTaskTokenRecord, previous: TaskTokenRecord): Promise<ConditionalOutcome> {
    const condition =
      previous.taskToken === undefined
        ? {
            ConditionExpression: 'attribute_exists(inferenceId) AND attribute_not_exists(taskToken)',
          }
        : {
            ConditionExpression: 'taskToken = :previousToken',
            ExpressionAttributeValues: { ':previousToken': previous.taskToken },
          };
    return this.conditional('PutItem', record.inferenceId, () =>
      this.client.send(new PutCommand({ TableName: this.tableName, Item: toItem(record), ...condition })),
    );
  }

  async get(inferenceId: string): Promise<TaskTokenRecord | undefined> {
    try {
      const response = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { inferenceId }, ConsistentRead: true }),
      );
      return response.Item === undefined ? undefined : fromItem(inferenceId, response.Item);
    } catch (error) {
      throw mapError('GetItem', { inferenceId }, error);
    }
  }

  /**
   * Scan, page after page (ExclusiveStartKey), keeping the items that still hold a token. The filter
   * runs server-side after the read, so tombstones still cost read capacity; the table only holds
   * a run's worth of records until their TTL, so a Scan stays small. Strongly consistent, so a
   * token stored just before is seen.
   */
  async *listWaiting(): AsyncIterable<NewTaskTokenRecord> {
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.scanPage(exclusiveStartKey);
      for (const item of page.Items ?? []) {
        const id = typeof item.inferenceId === 'string' ? item.inferenceId : '(no inferenceId)';
        const record = fromItem(id, item);
        // The filter asks for a token; a record consumed between the read and here has none.
        if (record.taskToken !== undefined) yield { ...record, taskToken: record.taskToken };
      }
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey !== undefined);
  }

  private async scanPage(exclusiveStartKey: Record<string, unknown> | undefined): Promise<ScanCommandOutput> {
    try {
      return await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: 'attribute_exists(taskToken)',
          ConsistentRead: true,
          ...(exclusiveStartKey === undefined ? {} : { ExclusiveStartKey: exclusiveStartKey }),
        }),
      );
    } catch (error) {
      throw mapError('Scan', { tableName: this.tableName }, error);
    }
  }

  consumeToken(
    inferenceId: string,
    taskToken: string,
    resumedAtEpochMs: number,
  ): Promise<ConditionalOutcome> {
    return this.conditional('UpdateItem', inferenceId, () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { inferenceId },
          UpdateExpression: 'REMOVE taskToken SET resumedAtEpochMs = :resumedAt',
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken, ':resumedAt': resumedAtEpochMs },
        }),
      ),
    );
  }

  deleteIfToken(inferenceId: string, taskToken: string): Promise<ConditionalOutcome> {
    return this.conditional('DeleteItem', inferenceId, () =>
      this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: { inferenceId },
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: { ':token': taskToken },
        }),
      ),
    );
  }

  /** One UpdateItem after InvokeEndpointAsync returned; the failure location only when there is one. */
  recordReceipt(
    inferenceId: string,
    taskToken: string,
    receipt: AsyncInvocationReceipt,
  ): Promise<ConditionalOutcome> {
    const failure = receipt.failureLocation;
    return this.conditional('UpdateItem', inferenceId, () =>
      this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { inferenceId },
          UpdateExpression:
            failure === undefined
              ? 'SET outputLocation = :output'
              : 'SET outputLocation = :output, failureLocation = :failure',
          ConditionExpression: 'taskToken = :token',
          ExpressionAttributeValues: {
            ':token': taskToken,
            ':output': receipt.outputLocation,
            ...(failure === undefined ? {} : { ':failure': failure }),
          },
        }),
      ),
    );
  }

  /** Runs a conditional write: a failed condition is the `changed` outcome, not an error. */
  private async conditional(
    operation: string,
    inferenceId: string,
    write: () => Promise<unknown>,
  ): Promise<ConditionalOutcome> {
    try {
      await write();
      return { status: 'done' };
    } catch (error) {
      if (
        error instanceof ConditionalCheckFailedException ||
        errorName(error) === 'ConditionalCheckFailedException'
      ) {
        return { status: 'changed' };
      }
      throw mapError(operation, { inferenceId }, error);
    }
  }
}

function toItem(record: NewTaskTokenRecord): Record<string, unknown> {
  return {
    inferenceId: record.inferenceId,
    taskToken: record.taskToken,
    runId: record.runId,
    itemIndex: record.itemIndex,
    inputLocation: record.inputLocation,
    ...(record.endpointName === undefined ? {} : { endpointName: record.endpointName }),
    storedAtEpochMs: record.storedAtEpochMs,
    [TOKEN_TABLE_KEYS.ttl]: record.expiresAtEpochSeconds,
  };
}

/** Reads an item defensively: the table is shared state, so its shape is checked, not assumed. */
function fromItem(inferenceId: string, item: Record<string, unknown>): TaskTokenRecord {
  const text = (key: string): string => {
    const value = item[key];
    if (typeof value !== 'string') throw badItem(inferenceId, key, 'a string');
    return value;
  };
  const number = (key: string): number => {
    const value = item[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) throw badItem(inferenceId, key, 'a number');
    return value;
  };
  const token = item.taskToken;
  if (token !== undefined && typeof token !== 'string') throw badItem(inferenceId, 'taskToken', 'a string');
  const resumedAt = item.resumedAtEpochMs;
  const optionalText = (key: string): string | undefined => {
    const value = item[key];
    if (value !== undefined && typeof value !== 'string') throw badItem(inferenceId, key, 'a string');
    return value;
  };
  const endpointName = optionalText('endpointName');
  const outputLocation = optionalText('outputLocation');
  const failureLocation = optionalText('failureLocation');
  return {
    inferenceId: text('inferenceId'),
    ...(token === undefined ? {} : { taskToken: token }),
    runId: text('runId'),
    itemIndex: number('itemIndex'),
    inputLocation: text('inputLocation'),
    ...(endpointName === undefined ? {} : { endpointName }),
    ...(outputLocation === undefined ? {} : { outputLocation }),
    ...(failureLocation === undefined ? {} : { failureLocation }),
    storedAtEpochMs: number('storedAtEpochMs'),
    ...(typeof resumedAt === 'number' ? { resumedAtEpochMs: resumedAt } : {}),
    expiresAtEpochSeconds: number(TOKEN_TABLE_KEYS.ttl),
  };
}

function badItem(inferenceId: string, key: string, expected: string): Error {
  return new TypeError(
    `Task-token record ${inferenceId}: attribute ${key} is missing or of the wrong type, expected ${expected}`,
  );
}

/**
 * DynamoDB errors carry no attribute values, so their messages are safe to keep. The target names
 * what was read or written (one record, or the table for a Scan), never a token. Throttling and 5xx
 * become `TransientServiceError`; `ValidationException` (a key or item over DynamoDB's size limits,
 * a malformed expression) becomes `RequestRefusedError`: DynamoDB's error reference marks it "OK to
 * retry? No" (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html).
 * Anything else keeps its own name.
 */
function mapError(
  operation: string,
  target: { readonly inferenceId: string } | { readonly tableName: string },
  error: unknown,
): unknown {
  const subject =
    'inferenceId' in target ? `inference ${describeId(target.inferenceId)}` : `table ${target.tableName}`;
  const details =
    'inferenceId' in target
      ? { operation, inferenceId: describeId(target.inferenceId) }
      : { operation, ...target };
  if (isTransient(error)) {
    return new TransientServiceError(
      `DynamoDB ${operation} for ${subject} failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
      details,
      { cause: error },
    );
  }
  if (errorName(error) === 'ValidationException') {
    return new RequestRefusedError(
      `DynamoDB ${operation} for ${subject} refused the request: ValidationException: ${errorMessage(error)}`,
      details,
      { cause: error },
    );
  }
  return error;
}

/** An id as messages quote it: a refused one can be far longer than any id this project writes. */
function describeId(inferenceId: string): string {
  return inferenceId.length <= 80
    ? inferenceId
    : `${inferenceId.slice(0, 79)}… (${inferenceId.length} characters)`;
}
