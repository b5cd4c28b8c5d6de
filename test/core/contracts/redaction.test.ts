import { describe, expect, it } from '@jest/globals';
import {
  REDACTED_CREDENTIAL,
  REDACTED_TOKEN,
  redactError,
  redactText,
  redactValue,
} from '../../../core/contracts/redaction.js';

/** A task token as Step Functions issues them: a long base64 run. */
const TOKEN = `AQCEAAAAKgAAAAMAAAAAAAAAAb${'Xy9+Qz0='.repeat(80)}`;
const PRESIGNED =
  'https://mso-artifacts.s3.us-east-1.amazonaws.com/runs/r1/report.html?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
  '&X-Amz-Credential=AKIAEXAMPLE%2F20261124%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20261124T000000Z' +
  '&X-Amz-Security-Token=IQoJb3JpZ2luX2VjEXAMPLE&X-Amz-Signature=0123456789abcdef&X-Amz-SignedHeaders=host';

describe('redactText', () => {
  it('replaces AWS access key ids, secret access keys and Hugging Face tokens a failure reason quotes', () => {
    // Prepare: a model's FailureReason echoing its environment (AWS's documented example keys).
    const reason =
      'ClientError: container exited: env AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE ' +
      'AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" session ASIAY34FZKBOKMUTVV7A ' +
      'HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567';

    // Act
    const text = redactText(reason);

    // Assert
    expect(text).toBe(
      `ClientError: container exited: env AWS_ACCESS_KEY_ID=${REDACTED_CREDENTIAL} ` +
        `AWS_SECRET_ACCESS_KEY="${REDACTED_CREDENTIAL}" session ${REDACTED_CREDENTIAL} ` +
        `HF_TOKEN=${REDACTED_CREDENTIAL}`,
    );
  });

  it('keeps identifiers that are not credentials: hashes, ARNs, names, paths', () => {
    // Prepare
    const text =
      'commit 9f3c2b1a0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b, arn:aws:iam::123456789012:role/MsoEndpointRole, ' +
      'endpoint mso-run-20261128-c5-xlarge-compiled, hf_model_id distilbert/distilbert-base-uncased, ' +
      '/opt/ml/model/code/inference.py, MAX_NEW_TOKENS=512';

    // Act / Assert
    expect(redactText(text)).toBe(text);
  });

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
