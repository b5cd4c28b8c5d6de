import { expect } from '@jest/globals';
import type { ParsedEvent } from '../../../../core/run-status/proxy-event.js';

/**
 * Proxy events as API Gateway's REST Lambda proxy integration sends them: every key present,
 * `body`, `pathParameters` and `queryStringParameters` null when the request has none.
 */
export function proxyEvent(
  resource: string,
  overrides: Readonly<Record<string, unknown>> = {},
): Record<string, unknown> {
  return {
    resource,
    path: resource,
    httpMethod: 'GET',
    headers: null,
    multiValueHeaders: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {
      requestId: 'c0ffee00-1111-2222-3333-444455556666',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      stage: 'v1',
      identity: { userArn: 'arn:aws:iam::123456789012:user/operator' },
    },
    body: null,
    isBase64Encoded: false,
    ...overrides,
  };
}

/** The request a parsed event holds; a test whose event was refused fails here, with the answer. */
export function requestOf<Request>(parsed: ParsedEvent<Request>): Request {
  if ('refusal' in parsed) {
    throw new Error(`the event was refused: ${JSON.stringify(parsed.refusal.body)}`);
  }
  return parsed.request;
}

/** What a route answers an event API Gateway would not send: 400 `InvalidRequest` with these issues. */
export function invalidRequestRefusal(issues: readonly { field: string; given: string; expected: string }[]) {
  return {
    refusal: {
      statusCode: 400,
      body: expect.objectContaining({ error: 'InvalidRequest', issues }),
    },
  };
}
