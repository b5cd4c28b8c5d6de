import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { TransientServiceError } from '../../core/contracts/index.js';
import type { NoticePublisher, RunSummaryNotice } from '../../core/operations/notify-run-summary.js';
import { errorMessage, errorName, isTransient } from './aws-errors.js';

/**
 * `NoticePublisher` over SNS `Publish` to one topic. The notice's attributes become String
 * message attributes, which subscription filter policies match on (e.g. only `status` FAILED).
 * Throttling and 5xx become `TransientServiceError`; anything else is rethrown as it is.
 */

export interface SnsPublisherOptions {
  readonly client: SNSClient;
  readonly topicArn: string;
}

export class SnsPublisher implements NoticePublisher {
  private readonly client: SNSClient;
  private readonly topicArn: string;

  constructor(options: SnsPublisherOptions) {
    this.client = options.client;
    this.topicArn = options.topicArn;
  }

  async publish(notice: RunSummaryNotice): Promise<{ readonly messageId: string }> {
    try {
      const response = await this.client.send(
        new PublishCommand({
          TopicArn: this.topicArn,
          Subject: notice.subject,
          Message: notice.body,
          MessageAttributes: Object.fromEntries(
            Object.entries(notice.attributes).map(([name, value]) => [
              name,
              { DataType: 'String', StringValue: value },
            ]),
          ),
        }),
      );
      if (response.MessageId === undefined) {
        throw new Error(`SNS Publish to ${this.topicArn} answered without a MessageId, expected one`);
      }
      return { messageId: response.MessageId };
    } catch (error) {
      if (isTransient(error)) {
        throw new TransientServiceError(
          `SNS Publish to ${this.topicArn} failed: ${errorName(error) ?? 'Error'}: ${errorMessage(error)}`,
          { operation: 'Publish', topicArn: this.topicArn },
        );
      }
      throw error;
    }
  }
}
