import { ConditionalCheckFailedException, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import {
  InvalidOutput,
  type SFNClient,
  SFNServiceException,
  TaskDoesNotExist,
  TaskTimedOut,
} from '@aws-sdk/client-sfn';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type JsonValue, type TaskTokenBroker, TaskTokenError } from '../../../local/runner/index.js';
import { type AwsRecorder, installFake, serviceError } from './recorder.js';

type Item = Record<string, unknown>;
type Input = Record<string, unknown>;

/**
 * The task-token table (DynamoDB through lib-dynamodb) with the conditions the token store writes,
 * evaluated as DynamoDB does; a condition the fake does not know fails loudly rather than passing.
 */
export class FakeTokenTable {
  readonly items = new Map<string, Item>();

  install(client: DynamoDBDocumentClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'DynamoDBDocumentClient',
      recorder,
      validationError: (message) => serviceError(DynamoDBServiceException, 'ValidationException', message),
      handle: (command, input) => this.handle(command, input),
    });
  }

  private handle(command: string, input: Input): unknown {
    switch (command) {
      case 'PutCommand': {
        const item = input.Item as Item;
        const id = String(item.inferenceId);
        this.check(input, this.items.get(id));
        this.items.set(id, item);
        return {};
      }
      case 'GetCommand': {
        const item = this.items.get(String((input.Key as Item).inferenceId));
        return item === undefined ? {} : { Item: item };
      }
      case 'UpdateCommand': {
        const id = String((input.Key as Item).inferenceId);
        const existing = this.items.get(id);
        this.check(input, existing);
        if (input.UpdateExpression !== 'REMOVE taskToken SET resumedAtEpochMs = :resumedAt') {
          throw new Error(`FakeTokenTable: UpdateExpression ${String(input.UpdateExpression)} is not faked`);
        }
        const values = input.ExpressionAttributeValues as Item;
        const { taskToken: _removed, ...rest } = existing ?? { inferenceId: id };
        this.items.set(id, { ...rest, resumedAtEpochMs: values[':resumedAt'] });
        return {};
      }
      case 'DeleteCommand': {
        const id = String((input.Key as Item).inferenceId);
        this.check(input, this.items.get(id));
        this.items.delete(id);
        return {};
      }
      case 'ScanCommand':
        if (input.FilterExpression !== 'attribute_exists(taskToken)') {
          throw new Error(`FakeTokenTable: FilterExpression ${String(input.FilterExpression)} is not faked`);
        }
        return { Items: [...this.items.values()].filter((item) => item.taskToken !== undefined) };
      default:
        throw new Error(`FakeTokenTable: ${command} is not faked; add it to the fake`);
    }
  }

  private check(input: Input, existing: Item | undefined): void {
    const condition = input.ConditionExpression;
    if (condition === undefined) return;
    const values = (input.ExpressionAttributeValues ?? {}) as Item;
    const holds = (() => {
      switch (condition) {
        case 'attribute_not_exists(inferenceId)':
          return existing === undefined;
        case 'attribute_exists(inferenceId) AND attribute_not_exists(taskToken)':
          return existing !== undefined && existing.taskToken === undefined;
        case 'taskToken = :previousToken':
          return existing !== undefined && existing.taskToken === values[':previousToken'];
        case 'taskToken = :token':
          return existing !== undefined && existing.taskToken === values[':token'];
        default:
          throw new Error(`FakeTokenTable: ConditionExpression ${JSON.stringify(condition)} is not faked`);
      }
    })();
    if (!holds) {
      throw new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: { httpStatusCode: 400 },
      });
    }
  }
}

/**
 * Step Functions' task-token API over the runner's broker: the broker's errors become the SDK's
 * modeled exceptions (`TaskDoesNotExist`, `TaskTimedOut`, `InvalidOutput`).
 */
export function installFakeStepFunctions(
  client: SFNClient,
  broker: TaskTokenBroker,
  recorder: AwsRecorder,
): void {
  installFake({
    client,
    clientName: 'SFNClient',
    recorder,
    validationError: (message) => serviceError(SFNServiceException, 'ValidationException', message),
    handle: async (command, input) => {
      const token = String(input.taskToken);
      try {
        if (command === 'SendTaskSuccessCommand') {
          await broker.sendTaskSuccess(token, JSON.parse(String(input.output)) as JsonValue);
        } else if (command === 'SendTaskFailureCommand') {
          await broker.sendTaskFailure(
            token,
            typeof input.error === 'string' ? input.error : '',
            typeof input.cause === 'string' ? input.cause : '',
          );
        } else if (command === 'SendTaskHeartbeatCommand') {
          await broker.sendTaskHeartbeat(token);
        } else {
          throw new Error(`installFakeStepFunctions: ${command} is not faked; add it to the fake`);
        }
      } catch (error) {
        if (!(error instanceof TaskTokenError)) throw error;
        const options = { message: error.message, $metadata: { httpStatusCode: 400 } };
        if (error.name === 'TaskDoesNotExist') throw new TaskDoesNotExist(options);
        if (error.name === 'TaskTimedOut') throw new TaskTimedOut(options);
        throw new InvalidOutput(options);
      }
      return {};
    },
  });
}
