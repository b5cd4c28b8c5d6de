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
import { type AwsRecorder, type CommandHandler, installFake, serviceError } from './recorder.js';

type Item = Record<string, unknown>;
type Input = Record<string, unknown>;

/**
 * DynamoDB's size limits (Amazon DynamoDB developer guide, "Constraints in Amazon DynamoDB",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html): a partition
 * key value holds 1 to 2,048 bytes, an item at most 400 KB (1 KB = 1,024 bytes), attribute names and
 * values together. DynamoDB refuses either with a ValidationException, in these words.
 */
export const DYNAMODB_LIMITS = { partitionKeyBytes: 2048, itemBytes: 400 * 1024 } as const;

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/**
 * An attribute value's size as DynamoDB counts it ("Item sizes and formats" in the developer guide):
 * a string its UTF-8 bytes, a number about one byte per two significant digits plus one, a boolean
 * or null one byte, a list or map three bytes plus one per element and its elements' sizes.
 */
function valueBytes(value: unknown): number {
  if (typeof value === 'string') return utf8Bytes(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value))
      .replace(/e.*$/, '')
      .replace('.', '')
      .replace(/^0+|0+$/g, '');
    return Math.ceil(Math.max(1, digits.length) / 2) + 1;
  }
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, item) => sum + 1 + valueBytes(item), 0);
  if (typeof value === 'object' && value !== null)
    return 3 + itemBytes(value as Item) + Object.keys(value).length;
  return 1;
}

/** An item's size: every attribute's name (UTF-8) and value. */
export function itemBytes(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + utf8Bytes(name) + valueBytes(value), 0);
}

/** What DynamoDB answers to a key or item over its limits, or undefined when it accepts them. */
function sizeViolation(input: Input): string | undefined {
  const item = input.Item as Item | undefined;
  const key = (input.Key as Item | undefined) ?? item;
  const partitionKey = key?.inferenceId;
  if (typeof partitionKey === 'string') {
    if (partitionKey === '') {
      return 'One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: inferenceId';
    }
    if (utf8Bytes(partitionKey) > DYNAMODB_LIMITS.partitionKeyBytes) {
      return `One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of${DYNAMODB_LIMITS.partitionKeyBytes} bytes`;
    }
  }
  if (item !== undefined && itemBytes(item) > DYNAMODB_LIMITS.itemBytes) {
    return 'Item size has exceeded the maximum allowed size';
  }
  return undefined;
}

/**
 * The task-token table (DynamoDB through lib-dynamodb) with the conditions the token store writes,
 * evaluated as DynamoDB does; a condition the fake does not know fails loudly rather than passing.
 * Keys and items over DynamoDB's size limits are refused as DynamoDB refuses them.
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
    const violation = sizeViolation(input);
    if (violation !== undefined)
      throw serviceError(DynamoDBServiceException, 'ValidationException', violation);
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
 * modeled exceptions (`TaskDoesNotExist`, `TaskTimedOut`, `InvalidOutput`). Any other command goes
 * to `executions` (the executions' API), when given.
 */
export function installFakeStepFunctions(
  client: SFNClient,
  broker: TaskTokenBroker,
  recorder: AwsRecorder,
  executions?: CommandHandler,
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
        } else if (executions !== undefined) {
          return executions(command, input);
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
