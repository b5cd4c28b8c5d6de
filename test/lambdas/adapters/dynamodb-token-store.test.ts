import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type { NewTaskTokenRecord, TaskTokenRecord } from '../../../core/async/ports.js';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { DynamoDbTokenStore } from '../../../lambdas/adapters/dynamodb-token-store.js';

const TABLE = 'mso-async-task-tokens';
const ID = 'mso-nightly-1a2b3c4d-item-0';
const TOKEN = `AQCEAAAAKgAAAA${'t'.repeat(2000)}`;

const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(DynamoDBDocumentClient);
const store = new DynamoDbTokenStore({ client: documentClient, tableName: TABLE });

const record: NewTaskTokenRecord = {
  inferenceId: ID,
  taskToken: TOKEN,
  runId: 'nightly',
  itemIndex: 0,
  inputLocation: 's3://mso-async-input/inputs/0001.json',
  storedAtEpochMs: 1_780_000_000_000,
  expiresAtEpochSeconds: 1_780_028_800,
};

const item = {
  inferenceId: ID,
  taskToken: TOKEN,
  runId: 'nightly',
  itemIndex: 0,
  inputLocation: 's3://mso-async-input/inputs/0001.json',
  storedAtEpochMs: 1_780_000_000_000,
  expiresAt: 1_780_028_800,
};

function conditionFailed(): ConditionalCheckFailedException {
  return new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} });
}

describe('DynamoDbTokenStore', () => {
  beforeEach(() => {
    dynamo.reset();
  });

  it('puts the record on condition that no record has the id, with the TTL in expiresAt', async () => {
    // Arrange
    dynamo.on(PutCommand).resolves({});

    // Act
    const outcome = await store.putIfAbsent(record);

    // Assert
    expect(outcome).toEqual({ status: 'stored' });
    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Item: item,
      ConditionExpression: 'attribute_not_exists(inferenceId)',
    });
  });

  it('returns the existing record, read consistently, when the id is taken', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());
    dynamo.on(GetCommand).resolves({ Item: { ...item, taskToken: 'older-token' } });

    const outcome = await store.putIfAbsent(record);

    expect(outcome).toEqual({ status: 'exists', existing: { ...record, taskToken: 'older-token' } });
    expect(dynamo.commandCalls(GetCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { inferenceId: ID },
      ConsistentRead: true,
    });
  });

  it('replaces a previous token on condition that it is still the stored one', async () => {
    dynamo.on(PutCommand).resolves({});

    await store.replace(record, { ...record, taskToken: 'older-token' });

    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Item: item,
      ConditionExpression: 'taskToken = :previousToken',
      ExpressionAttributeValues: { ':previousToken': 'older-token' },
    });
  });

  it('replaces a tombstone on condition that it still has no token', async () => {
    dynamo.on(PutCommand).resolves({});
    const { taskToken: _none, ...tombstone } = record;

    await store.replace(record, tombstone);

    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input).toMatchObject({
      ConditionExpression: 'attribute_exists(inferenceId) AND attribute_not_exists(taskToken)',
    });
  });

  it('reports a changed record when the replace condition fails', async () => {
    dynamo.on(PutCommand).rejects(conditionFailed());

    await expect(store.replace(record, { ...record, taskToken: 'older-token' })).resolves.toEqual({
      status: 'changed',
    });
  });

  it('consumes the token: removes it and records when, on condition that it is unchanged', async () => {
    dynamo.on(UpdateCommand).resolves({});

    const outcome = await store.consumeToken(ID, TOKEN, 1_780_000_030_000);

    expect(outcome).toEqual({ status: 'done' });
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { inferenceId: ID },
      UpdateExpression: 'REMOVE taskToken SET resumedAtEpochMs = :resumedAt',
      ConditionExpression: 'taskToken = :token',
      ExpressionAttributeValues: { ':token': TOKEN, ':resumedAt': 1_780_000_030_000 },
    });
  });

  it('records the receipt: both locations, on condition that the token is unchanged', async () => {
    dynamo.on(UpdateCommand).resolves({});

    const outcome = await store.recordReceipt(ID, TOKEN, {
      inferenceId: ID,
      outputLocation: 's3://mso-artifacts/runs/nightly/async/output/a.out',
      failureLocation: 's3://mso-artifacts/runs/nightly/async/failures/a-error.out',
    });

    expect(outcome).toEqual({ status: 'done' });
    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { inferenceId: ID },
      UpdateExpression: 'SET outputLocation = :output, failureLocation = :failure',
      ConditionExpression: 'taskToken = :token',
      ExpressionAttributeValues: {
        ':token': TOKEN,
        ':output': 's3://mso-artifacts/runs/nightly/async/output/a.out',
        ':failure': 's3://mso-artifacts/runs/nightly/async/failures/a-error.out',
      },
    });
  });

  it('records the output location alone when the endpoint has no failure path', async () => {
    dynamo.on(UpdateCommand).resolves({});

    await store.recordReceipt(ID, TOKEN, { inferenceId: ID, outputLocation: 's3://out/a.out' });

    expect(dynamo.commandCalls(UpdateCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { inferenceId: ID },
      UpdateExpression: 'SET outputLocation = :output',
      ConditionExpression: 'taskToken = :token',
      ExpressionAttributeValues: { ':token': TOKEN, ':output': 's3://out/a.out' },
    });
  });

  it('reports a changed record when the task was resumed before the receipt was recorded', async () => {
    dynamo.on(UpdateCommand).rejects(conditionFailed());

    await expect(
      store.recordReceipt(ID, TOKEN, { inferenceId: ID, outputLocation: 's3://out/a.out' }),
    ).resolves.toEqual({ status: 'changed' });
  });

  it('reads the output and failure locations back', async () => {
    dynamo.on(GetCommand).resolves({
      Item: { ...item, outputLocation: 's3://out/a.out', failureLocation: 's3://out/a-error.out' },
    });

    await expect(store.get(ID)).resolves.toEqual({
      ...record,
      outputLocation: 's3://out/a.out',
      failureLocation: 's3://out/a-error.out',
    });
  });

  it('fails when a stored output location is not a string, naming the attribute', async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...item, outputLocation: 7 } });

    await expect(store.get(ID)).rejects.toThrow(
      `Task-token record ${ID}: attribute outputLocation is missing or of the wrong type, expected a string`,
    );
  });

  it('deletes the record on condition that it still holds the token', async () => {
    dynamo.on(DeleteCommand).resolves({});

    await store.deleteIfToken(ID, TOKEN);

    expect(dynamo.commandCalls(DeleteCommand)[0]?.args[0].input).toEqual({
      TableName: TABLE,
      Key: { inferenceId: ID },
      ConditionExpression: 'taskToken = :token',
      ExpressionAttributeValues: { ':token': TOKEN },
    });
  });

  it('reads a tombstone as a record without a token', async () => {
    const { taskToken: _removed, ...tombstone } = item;
    dynamo.on(GetCommand).resolves({ Item: { ...tombstone, resumedAtEpochMs: 1_780_000_030_000 } });

    const found = await store.get(ID);

    expect(found).toEqual({
      inferenceId: ID,
      runId: 'nightly',
      itemIndex: 0,
      inputLocation: 's3://mso-async-input/inputs/0001.json',
      storedAtEpochMs: 1_780_000_000_000,
      resumedAtEpochMs: 1_780_000_030_000,
      expiresAtEpochSeconds: 1_780_028_800,
    });
  });

  it('returns undefined when no record has the id', async () => {
    dynamo.on(GetCommand).resolves({});

    await expect(store.get(ID)).resolves.toBeUndefined();
  });

  it('fails when a stored item lacks an attribute, naming it', async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...item, runId: undefined } });

    await expect(store.get(ID)).rejects.toThrow(`Task-token record ${ID}: attribute runId is missing`);
  });

  it('fails with TransientServiceError when DynamoDB throttles', async () => {
    dynamo
      .on(GetCommand)
      .rejects(Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' }));

    await expect(store.get(ID)).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('stores the endpoint name with the record when it has one', async () => {
    dynamo.on(PutCommand).resolves({});

    await store.putIfAbsent({ ...record, endpointName: 'mso-nightly-1a2b3c4d-ep-async' });

    expect(dynamo.commandCalls(PutCommand)[0]?.args[0].input.Item).toEqual({
      ...item,
      endpointName: 'mso-nightly-1a2b3c4d-ep-async',
    });
  });

  it('reads the endpoint name back', async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...item, endpointName: 'mso-nightly-1a2b3c4d-ep-async' } });

    await expect(store.get(ID)).resolves.toEqual({
      ...record,
      endpointName: 'mso-nightly-1a2b3c4d-ep-async',
    });
  });

  it('fails when a stored endpoint name is not a string, naming the attribute', async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...item, endpointName: 42 } });

    await expect(store.get(ID)).rejects.toThrow(
      `Task-token record ${ID}: attribute endpointName is missing or of the wrong type`,
    );
  });

  describe('listing waiting tasks', () => {
    async function listAll(): Promise<TaskTokenRecord[]> {
      const records: TaskTokenRecord[] = [];
      for await (const waiting of store.listWaiting()) records.push(waiting);
      return records;
    }

    it('scans consistently for the records that still hold a token', async () => {
      // Arrange
      dynamo
        .on(ScanCommand)
        .resolves({ Items: [{ ...item, endpointName: 'mso-nightly-1a2b3c4d-ep-async' }] });

      // Act
      const records = await listAll();

      // Assert
      expect(records).toEqual([{ ...record, endpointName: 'mso-nightly-1a2b3c4d-ep-async' }]);
      expect(dynamo.commandCalls(ScanCommand).map((call) => call.args[0].input)).toEqual([
        { TableName: TABLE, FilterExpression: 'attribute_exists(taskToken)', ConsistentRead: true },
      ]);
    });

    it('follows LastEvaluatedKey to the next page', async () => {
      const second = { ...item, inferenceId: `${ID}1`, itemIndex: 1 };
      dynamo.on(ScanCommand, { ExclusiveStartKey: undefined }).resolves({
        Items: [item],
        LastEvaluatedKey: { inferenceId: ID },
      });
      dynamo.on(ScanCommand, { ExclusiveStartKey: { inferenceId: ID } }).resolves({ Items: [second] });

      const records = await listAll();

      expect(records.map((r) => r.inferenceId)).toEqual([ID, `${ID}1`]);
      expect(dynamo.commandCalls(ScanCommand)[1]?.args[0].input).toEqual({
        TableName: TABLE,
        FilterExpression: 'attribute_exists(taskToken)',
        ConsistentRead: true,
        ExclusiveStartKey: { inferenceId: ID },
      });
    });

    it('goes on past an empty page that still has a LastEvaluatedKey (the filter removed every item)', async () => {
      dynamo.on(ScanCommand, { ExclusiveStartKey: undefined }).resolves({
        Items: [],
        LastEvaluatedKey: { inferenceId: 'tombstone' },
      });
      dynamo.on(ScanCommand, { ExclusiveStartKey: { inferenceId: 'tombstone' } }).resolves({ Items: [item] });

      await expect(listAll()).resolves.toEqual([record]);
    });

    it('leaves out a record whose token is gone', async () => {
      const { taskToken: _removed, ...tombstone } = item;
      dynamo.on(ScanCommand).resolves({ Items: [tombstone, item] });

      await expect(listAll()).resolves.toEqual([record]);
    });

    it('fails with TransientServiceError naming the table, not a token, when the Scan is throttled', async () => {
      dynamo
        .on(ScanCommand)
        .rejects(
          Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' }),
        );

      const error = await listAll().catch((e: unknown) => e);

      expect(error).toBeInstanceOf(TransientServiceError);
      expect((error as Error).message).toBe(
        `DynamoDB Scan for table ${TABLE} failed: ProvisionedThroughputExceededException: Rate exceeded`,
      );
    });
  });
});
