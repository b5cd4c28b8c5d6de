import { describe, expect, it } from '@jest/globals';
import { parseNotification } from '../../../core/async/notification.js';
import { completedMessage, failedMessage } from './support/messages.js';

describe('parseNotification', () => {
  it('reads a Completed notification: output location, input location and both times', () => {
    // Act
    const parsed = parseNotification(completedMessage('mso-run-1-item-0'));

    // Assert
    expect(parsed).toEqual({
      kind: 'notification',
      notification: {
        outcome: 'completed',
        inferenceId: 'mso-run-1-item-0',
        endpointName: 'mso-async-endpoint',
        inputLocation: 's3://mso-async-input/inputs/0001.json',
        outputLocation: 's3://mso-async-output/results/2f4dcf85-01b8-418c-8c93-2b30fcdd1ab8.out',
        receivedAtEpochMs: Date.parse('2026-05-23T03:23:09.588Z'),
        finishedAtEpochMs: Date.parse('2026-05-23T03:23:21.814Z'),
      },
    });
  });

  it('reads a Failed notification with its failure reason', () => {
    const parsed = parseNotification(failedMessage('mso-run-1-item-1'));

    expect(parsed).toEqual({
      kind: 'notification',
      notification: {
        outcome: 'failed',
        inferenceId: 'mso-run-1-item-1',
        invocationStatus: 'Failed',
        failureReason:
          'ClientError: Received server error (500) from model. See the SageMaker Endpoint logs in your account for more information.',
        endpointName: 'mso-async-endpoint',
        inputLocation: 's3://mso-async-input/inputs/0002.json',
        receivedAtEpochMs: Date.parse('2026-05-23T03:23:10.455Z'),
        finishedAtEpochMs: Date.parse('2026-05-23T03:23:10.608Z'),
      },
    });
  });

  it('redacts a credential quoted in a failure reason', () => {
    // Act
    const parsed = parseNotification(
      failedMessage('c', {
        failureReason: 'model error: token hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567 refused',
      }),
    );

    // Assert
    expect(parsed.kind === 'notification' && parsed.notification).toMatchObject({
      failureReason: 'model error: token <credential> refused',
    });
  });

  it('keeps the failure location, top-level or under responseParameters', () => {
    const topLevel = parseNotification(failedMessage('a', { failureLocation: 's3://b/failures/1.out' }));
    const nested = parseNotification(
      failedMessage('b', { responseParameters: { failureLocation: 's3://b/failures/2.out' } }),
    );

    expect(topLevel.kind === 'notification' && topLevel.notification).toMatchObject({
      failureLocation: 's3://b/failures/1.out',
    });
    expect(nested.kind === 'notification' && nested.notification).toMatchObject({
      failureLocation: 's3://b/failures/2.out',
    });
  });

  it('treats any status other than Completed as a failure that names the status', () => {
    const parsed = parseNotification(
      failedMessage('c', { invocationStatus: 'Expired', failureReason: undefined }),
    );

    expect(parsed).toMatchObject({
      kind: 'notification',
      notification: {
        outcome: 'failed',
        invocationStatus: 'Expired',
        failureReason: 'Unexpected invocationStatus "Expired", expected Completed or Failed',
      },
    });
  });

  it('accepts fields SageMaker adds later', () => {
    const parsed = parseNotification(completedMessage('d', { inferenceResponse: { content: '{"y":1}' } }));

    expect(parsed.kind).toBe('notification');
  });

  it('leaves the times out when the message has none', () => {
    const parsed = parseNotification(
      completedMessage('e', { eventTime: undefined, receivedTime: undefined }),
    );

    expect(parsed.kind === 'notification' && parsed.notification).not.toHaveProperty('receivedAtEpochMs');
  });

  it('fails when the message is not JSON', () => {
    expect(parseNotification('{"inferenceId": "x"')).toEqual({
      kind: 'malformed',
      problem: 'not JSON (19 characters)',
    });
  });

  it('fails when the message has no inferenceId, and says which field is missing', () => {
    const parsed = parseNotification(JSON.stringify({ invocationStatus: 'Completed' }));

    expect(parsed).toMatchObject({ kind: 'malformed', problem: expect.stringContaining('inferenceId') });
    expect(parsed).not.toHaveProperty('inferenceId');
  });

  it('fails when a Completed message lacks its output location, keeping the id to fail the task', () => {
    const parsed = parseNotification(completedMessage('f', { responseParameters: { contentType: 'a/b' } }));

    expect(parsed).toEqual({
      kind: 'malformed',
      problem: 'invocationStatus is Completed but responseParameters.outputLocation is missing',
      inferenceId: 'f',
    });
  });

  it('fails when a time is not an ISO timestamp, keeping the readable id', () => {
    const parsed = parseNotification(completedMessage('g', { eventTime: 'yesterday' }));

    expect(parsed).toMatchObject({
      kind: 'malformed',
      inferenceId: 'g',
      problem: expect.stringContaining('eventTime'),
    });
  });

  it('fails when the message comes from another event source', () => {
    const parsed = parseNotification(completedMessage('h', { eventSource: 'aws:s3' }));

    expect(parsed).toMatchObject({ kind: 'malformed', problem: expect.stringContaining('eventSource') });
  });
});
