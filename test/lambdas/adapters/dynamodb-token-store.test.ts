import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import type { NewTaskTokenRecord } from '../../../handlers/async/ports.js';
import { TransientServiceError } from '../../../handlers/contracts/errors.js';
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
});
