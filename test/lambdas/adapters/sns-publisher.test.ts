import { AuthorizationErrorException, PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { beforeEach, describe, expect, it } from '@jest/globals';
import { mockClient } from 'aws-sdk-client-mock';
import { TransientServiceError } from '../../../core/contracts/errors.js';
import { SnsPublisher } from '../../../lambdas/adapters/sns-publisher.js';
import type { RunSummaryNotice } from '../../../core/operations/notify-run-summary.js';

const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:mso-runs';
const NOTICE: RunSummaryNotice = {
  subject: 'Optimization run nightly-1 failed: EndpointFailedError',
  body: 'Optimization run nightly-1 failed after 5 min.\n\nError: EndpointFailedError',
  attributes: { status: 'FAILED', workflow: 'optimization', outcome: 'failed' },
};
const sns = mockClient(SNSClient);
const publisher = new SnsPublisher({ client: new SNSClient({ region: 'us-east-1' }), topicArn: TOPIC_ARN });

describe('SnsPublisher', () => {
  beforeEach(() => {
    sns.reset();
  });

  it('publishes the subject, the body and the attributes as String message attributes', async () => {
    // Prepare
    sns.on(PublishCommand).resolves({ MessageId: 'm-1' });

    // Act
    const result = await publisher.publish(NOTICE);

    // Assert
    expect(result).toEqual({ messageId: 'm-1' });
    expect(sns.commandCalls(PublishCommand).map((call) => call.args[0].input)).toEqual([
      {
        TopicArn: TOPIC_ARN,
        Subject: 'Optimization run nightly-1 failed: EndpointFailedError',
        Message: 'Optimization run nightly-1 failed after 5 min.\n\nError: EndpointFailedError',
        MessageAttributes: {
          status: { DataType: 'String', StringValue: 'FAILED' },
          workflow: { DataType: 'String', StringValue: 'optimization' },
          outcome: { DataType: 'String', StringValue: 'failed' },
        },
      },
    ]);
  });

  it('publishes a Model Registry run’s comparison as a String attribute subscriptions can filter on', async () => {
    // Prepare
    sns.on(PublishCommand).resolves({ MessageId: 'm-2' });
    const notice: RunSummaryNotice = {
      ...NOTICE,
      attributes: {
        status: 'SUCCEEDED',
        workflow: 'optimization',
        outcome: 'recommended',
        comparison: 'regressed',
      },
    };

    // Act
    await publisher.publish(notice);

    // Assert
    expect(sns.commandCalls(PublishCommand).map((call) => call.args[0].input.MessageAttributes)).toEqual([
      {
        status: { DataType: 'String', StringValue: 'SUCCEEDED' },
        workflow: { DataType: 'String', StringValue: 'optimization' },
        outcome: { DataType: 'String', StringValue: 'recommended' },
        comparison: { DataType: 'String', StringValue: 'regressed' },
      },
    ]);
  });

  it('fails with TransientServiceError when SNS throttles', async () => {
    // Prepare
    sns.on(PublishCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottledException' }));

    // Act
    const failure = publisher.publish(NOTICE);

    // Assert
    await expect(failure).rejects.toBeInstanceOf(TransientServiceError);
  });

  it('fails with the service error when the Lambda may not publish', async () => {
    // Prepare
    sns
      .on(PublishCommand)
      .rejects(new AuthorizationErrorException({ message: 'not authorized', $metadata: {} }));

    // Act
    const failure = publisher.publish(NOTICE);

    // Assert
    await expect(failure).rejects.toBeInstanceOf(AuthorizationErrorException);
  });
});
