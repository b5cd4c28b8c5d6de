import { InvalidParameterException, NotFoundException, type SNSClient } from '@aws-sdk/client-sns';
import { type AwsRecorder, installFake } from './recorder.js';
import { hasControlCharacter } from './step-functions-executions.js';

type Input = Record<string, unknown>;

/**
 * SNS Publish to the topics the stack creates, with the constraints the SNS API reference gives
 * (Publish, https://docs.aws.amazon.com/sns/latest/api/API_Publish.html; message attributes,
 * https://docs.aws.amazon.com/sns/latest/dg/sns-message-attributes.html):
 *
 * - a message is UTF-8 and at most 256 KB (262,144 bytes, not characters), its message attributes'
 *   names, types and values counted in: "the total size of the message, including the message
 *   attributes, can't exceed 256 KB";
 * - a subject is "UTF-8 text with no line breaks or control characters, and less than 100
 *   characters long";
 * - an attribute name holds up to 256 of A–Z a–z 0–9 `-` `_` `.`, neither starts nor ends with a
 *   period nor has two in a row, and does not start with `AWS.` or `Amazon.`; a String attribute
 *   has a `StringValue`;
 * - a topic the account does not have is `NotFoundException`.
 *
 * Each violation is SNS's `InvalidParameterException`; what was published is kept, in order.
 */

export const SNS_LIMITS = {
  messageBytes: 262_144,
  subjectCharacters: 99,
  attributeNameCharacters: 256,
} as const;

const ATTRIBUTE_NAME = /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

export interface PublishedMessage {
  readonly topicArn: string;
  readonly subject?: string;
  readonly message: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export class FakeSnsService {
  private readonly topics = new Set<string>();
  readonly published: PublishedMessage[] = [];

  /** A topic of the account: Publish accepts its ARN. */
  addTopic(topicArn: string): void {
    this.topics.add(topicArn);
  }

  install(client: SNSClient, recorder: AwsRecorder): void {
    installFake({
      client,
      clientName: 'SNSClient',
      recorder,
      validationError: (message) => invalid(message),
      handle: (command, input) => this.handle(command, input),
    });
  }

  private handle(command: string, input: Input): unknown {
    if (command !== 'PublishCommand') {
      throw new Error(`FakeSnsService: ${command} is not faked; add it to the fake`);
    }
    const topicArn = String(input.TopicArn);
    if (!this.topics.has(topicArn))
      throw new NotFoundException({ message: 'Topic does not exist', $metadata: { httpStatusCode: 404 } });
    const message = String(input.Message);
    const subject = typeof input.Subject === 'string' ? input.Subject : undefined;
    if (subject !== undefined) {
      if (
        subject.length === 0 ||
        subject.length > SNS_LIMITS.subjectCharacters ||
        hasControlCharacter(subject)
      ) {
        throw invalid('Invalid parameter: Subject');
      }
    }
    const attributes = this.attributesOf(input.MessageAttributes);
    const size =
      Buffer.byteLength(message, 'utf8') +
      Object.entries(attributes).reduce(
        (sum, [name, value]) =>
          sum + Buffer.byteLength(name, 'utf8') + 'String'.length + Buffer.byteLength(value, 'utf8'),
        0,
      );
    if (size > SNS_LIMITS.messageBytes) {
      throw invalid('Invalid parameter: Message too long');
    }
    this.published.push({ topicArn, ...(subject === undefined ? {} : { subject }), message, attributes });
    return { MessageId: `00000000-0000-4000-8000-${String(this.published.length).padStart(12, '0')}` };
  }

  private attributesOf(given: unknown): Record<string, string> {
    const attributes: Record<string, string> = {};
    for (const [name, value] of Object.entries((given ?? {}) as Record<string, Input>)) {
      if (
        name.length > SNS_LIMITS.attributeNameCharacters ||
        !ATTRIBUTE_NAME.test(name) ||
        name.includes('..') ||
        /^(AWS|Amazon)\./i.test(name)
      ) {
        throw invalid(`Invalid parameter: MessageAttributes name ${name}`);
      }
      if (value.DataType !== 'String' || typeof value.StringValue !== 'string') {
        throw invalid(
          `Invalid parameter: MessageAttributes ${name}: expected DataType String with a StringValue, the only type the fake knows`,
        );
      }
      attributes[name] = value.StringValue;
    }
    return attributes;
  }
}

function invalid(message: string): InvalidParameterException {
  return new InvalidParameterException({ message, $metadata: { httpStatusCode: 400 } });
}
