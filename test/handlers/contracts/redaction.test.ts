import { describe, expect, it } from '@jest/globals';
import {
  REDACTED_TOKEN,
  redactError,
  redactText,
  redactValue,
} from '../../../handlers/contracts/redaction.js';

/** A task token as Step Functions issues them: a long base64 run. */
const TOKEN = `AQCEAAAAKgAAAAMAAAAAAAAAAb${'Xy9+Qz0='.repeat(80)}`;
const PRESIGNED =
  'https://mso-artifacts.s3.us-east-1.amazonaws.com/runs/r1/report.html?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
  '&X-Amz-Credential=AKIAEXAMPLE%2F20261124%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261124T000000Z' +
  '&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLE&X-Amz-Signature=0123456789abcdef&X-Amz-SignedHeaders=host';

describe('redactText', () => {
  it('replaces a secret the caller knows, wherever it appears', () => {
    expect(redactText('token abc-short-1 was refused: abc-short-1', ['abc-short-1'])).toBe(
      `token ${REDACTED_TOKEN} was refused: ${REDACTED_TOKEN}`,
    );
  });

  it('replaces a token-shaped run the caller does not know', () => {
    expect(redactText(`ConditionalCheckFailed for item {"taskToken":"${TOKEN}"}`)).toBe(
      `ConditionalCheckFailed for item {"taskToken":"${REDACTED_TOKEN}"}`,
    );
  });

  it("replaces a presigned URL's signature, credential and session token, keeping the path", () => {
    const text = redactText(`GET ${PRESIGNED} failed`);

    expect(text).toContain('https://mso-artifacts.s3.us-east-1.amazonaws.com/runs/r1/report.html?');
    expect(text).toContain('X-Amz-Signature=<redacted>');
    expect(text).toContain('X-Amz-Credential=<redacted>');
    expect(text).toContain('X-Amz-Security-Token=<redacted>');
    expect(text).not.toContain('0123456789abcdef');
    expect(text).not.toContain('AKIAEXAMPLE');
  });

  it('keeps what the project logs: names, ARNs, S3 URIs and ids', () => {
    const text =
      'Endpoint mso-nightly-1a2b3c4d-ep-c5-large-neo (arn:aws:sagemaker:us-east-1:123456789012:endpoint/x) ' +
      'reads s3://mso-artifacts/runs/nightly/model/model.tar.gz for inference 2f4dcf85-01b8-418c-8c93-2b30fcdd1ab8';

    expect(redactText(text)).toBe(text);
  });
});

describe('redactError', () => {
  it('redacts the message and stack in place, keeping the class and name', () => {
    // Arrange
    class TaskTimedOut extends Error {
      override readonly name = 'TaskTimedOut';
    }
    const error = new TaskTimedOut(`Task ${TOKEN} timed out`);

    // Act
    const redacted = redactError(error);

    // Assert
    expect(redacted).toBe(error);
    expect(error).toBeInstanceOf(TaskTimedOut);
    expect(error.name).toBe('TaskTimedOut');
    expect(error.message).toBe(`Task ${REDACTED_TOKEN} timed out`);
    expect(error.stack).not.toContain(TOKEN);
  });
});

describe('redactValue', () => {
  it('redacts strings inside nested details and keeps dates and numbers', () => {
    const when = new Date('2026-11-24T00:00:00Z');

    const redacted = redactValue({ runId: 'r1', attempt: 2, when, causes: [{ detail: `token ${TOKEN}` }] });

    expect(redacted).toEqual({
      runId: 'r1',
      attempt: 2,
      when,
      causes: [{ detail: `token ${REDACTED_TOKEN}` }],
    });
  });

  it('cuts a cycle instead of recursing forever', () => {
    const details: Record<string, unknown> = { name: 'loop' };
    details.self = details;

    expect(redactValue(details)).toEqual({ name: 'loop', self: '[circular]' });
  });
});
