import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from '@jest/globals';
import type { NewTaskTokenRecord } from '../../../core/async/ports.js';
import { ErrorNames } from '../../../core/contracts/errors.js';
import { DynamoDbTokenStore } from '../../../lambdas/adapters/dynamodb-token-store.js';
import { AwsRecorder } from './recorder.js';
import { DYNAMODB_LIMITS, FakeTokenTable } from './token-services.js';

/**
 * The fake task-token table refuses what DynamoDB refuses (a partition key over 2,048 bytes, an
 * item over 400 KB) with DynamoDB's ValidationException, and the real token store turns that into
 * RequestRefusedError: a request no retry can fix, not a transient failure.
 */

function storeOverFake(): { store: DynamoDbTokenStore; table: FakeTokenTable } {
  const client = DynamoDBDocumentClient.from(
    new DynamoDBClient({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDCONFORMANCE', secretAccessKey: 'conformance' },
    }),
  );
  const table = new FakeTokenTable();
  table.install(client, new AwsRecorder());
  return { store: new DynamoDbTokenStore({ client, tableName: 'mso-task-tokens' }), table };
}

function record(
  inferenceId: string,
  inputLocation = 's3://mso-async-input/inputs/0001.json',
): NewTaskTokenRecord {
  return {
    inferenceId,
    taskToken: `AQCEAAAAKgAAAA${'t'.repeat(2000)}`,
    runId: 'nightly',
    itemIndex: 0,
    inputLocation,
    storedAtEpochMs: 1_780_000_000_000,
    expiresAtEpochSeconds: 1_780_028_800,
  };
}

describe('FakeTokenTable: DynamoDB size limits', () => {
  it('fails when the partition key is over 2,048 bytes, as a refused request rather than a transient one', async () => {
    // Prepare
    const { store } = storeOverFake();

    // Act
    const read = store.get('i'.repeat(1024 * 1024));

    // Assert
    await expect(read).rejects.toMatchObject({
      name: ErrorNames.requestRefused,
      message: expect.stringContaining(
        'ValidationException: One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes',
      ),
    });
  });

  it('counts the key in UTF-8 bytes: 2,048 bytes pass, 1,025 two-byte characters do not', async () => {
    // Prepare
    const { store } = storeOverFake();

    // Act
    const atLimit = store.get('k'.repeat(DYNAMODB_LIMITS.partitionKeyBytes));
    const overLimit = store.get('é'.repeat(1025));

    // Assert
    await expect(atLimit).resolves.toBeUndefined();
    await expect(overLimit).rejects.toMatchObject({ name: ErrorNames.requestRefused });
  });

  it('fails when the item is over 400 KB, and stores nothing', async () => {
    // Prepare
    const { store, table } = storeOverFake();
    const oversized = record(
      'mso-nightly-1a2b3c4d-item-0',
      `s3://bucket/${'k'.repeat(DYNAMODB_LIMITS.itemBytes)}`,
    );

    // Act
    const put = store.putIfAbsent(oversized);

    // Assert
    await expect(put).rejects.toMatchObject({
      name: ErrorNames.requestRefused,
      message: expect.stringContaining('Item size has exceeded the maximum allowed size'),
    });
    expect(table.items.size).toBe(0);
  });

  it('stores a record within the limits', async () => {
    // Prepare
    const { store, table } = storeOverFake();

    // Act
    const outcome = await store.putIfAbsent(record('mso-nightly-1a2b3c4d-item-0'));

    // Assert
    expect(outcome).toEqual({ status: 'stored' });
    expect(table.items.has('mso-nightly-1a2b3c4d-item-0')).toBe(true);
  });
});
