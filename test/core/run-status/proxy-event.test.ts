import { describe, expect, it } from '@jest/globals';
import { parseDescribeRunEvent } from '../../../core/operations/describe-run.js';
import { parsePlanRunEvent } from '../../../core/operations/plan-run.js';
import { type ParsedEvent, RUN_ROUTES, type RunRoute } from '../../../core/run-status/proxy-event.js';
import { apiErrorSchema } from '../../../core/contracts/run-api-contract.js';
import { parseRunRouteEvent } from '../../../core/run-status/run-routes.js';
import { parseStartRunEvent } from '../../../core/operations/start-run.js';
import { proxyEvent } from './support/proxy-events.js';

/**
 * Every run API route reads its event with a schema: an event API Gateway never sends (no body key,
 * another route, no requestContext, not an object at all) is answered 400 naming what is wrong,
 * never thrown (a thrown error reaches an API caller as a bare 502).
 */

type Parse = (event: unknown) => ParsedEvent<unknown>;

/** Each route: its Lambda's name (for the test's title), the route, its parser, an optimization resource. */
const ROUTES: readonly [string, RunRoute, Parse, string][] = (
  [
    [RUN_ROUTES.start, parseStartRunEvent, '/runs'],
    [RUN_ROUTES.plan, parsePlanRunEvent, '/runs/plan'],
    [RUN_ROUTES.describe, parseDescribeRunEvent, '/runs/{id}'],
    [RUN_ROUTES.list, (event) => parseRunRouteEvent(event, RUN_ROUTES.list), '/runs'],
    [RUN_ROUTES.stop, (event) => parseRunRouteEvent(event, RUN_ROUTES.stop), '/runs/{id}/stop'],
    [RUN_ROUTES.events, (event) => parseRunRouteEvent(event, RUN_ROUTES.events), '/runs/{id}/events'],
    [RUN_ROUTES.report, (event) => parseRunRouteEvent(event, RUN_ROUTES.report), '/runs/{id}/report'],
  ] as const satisfies readonly [RunRoute, Parse, string][]
).map(([route, parse, resource]) => [route.handler, route, parse, resource]);

function refusalOf(parsed: ParsedEvent<unknown>) {
  if (!('refusal' in parsed)) throw new Error(`expected a refusal, got ${JSON.stringify(parsed)}`);
  expect(parsed.refusal.statusCode).toBe(400);
  const body = apiErrorSchema.parse(parsed.refusal.body);
  expect(body.error).toBe('InvalidRequest');
  return body;
}

describe('run API events API Gateway never sends', () => {
  it.each(ROUTES)('%s reads the event API Gateway sends', (_name, _route, parse, resource) => {
    // Act
    const parsed = parse(proxyEvent(resource, { pathParameters: { id: 'nightly' }, body: '{}' }));

    // Assert
    expect(parsed).toEqual({ request: expect.objectContaining({ workflow: 'optimization' }) });
  });

  it.each(ROUTES)('%s answers 400 to an event without requestContext', (_name, route, parse, resource) => {
    // Prepare
    const { requestContext: _dropped, ...event } = proxyEvent(resource, { body: '{}' });

    // Act
    const body = refusalOf(parse(event));

    // Assert
    expect(body.issues).toEqual([
      {
        field: 'requestContext',
        given: 'nothing',
        expected: 'an object: API Gateway describes every request there (request id, stage, caller)',
      },
    ]);
    expect(body.message).toContain(`${route.handler}: got an event API Gateway does not send`);
  });

  it.each(ROUTES)('%s answers 400 to an event of a route it does not serve', (_name, route, parse) => {
    // Act
    const body = refusalOf(parse(proxyEvent('/jobs/{id}', { body: '{}' })));

    // Assert
    expect(body.issues).toEqual([expect.objectContaining({ field: 'resource', given: '"/jobs/{id}"' })]);
    expect(body.message).toContain(`${route.method} ${route.path.replace('<r>', 'runs')}`);
  });

  it.each(ROUTES)('%s answers 400 to something that is not an event at all', (_name, _route, parse) => {
    for (const event of [undefined, null, 'GET /runs', [1, 2]]) {
      // Act
      const body = refusalOf(parse(event));

      // Assert
      expect(body.issues).toEqual([expect.objectContaining({ field: '(event)' })]);
    }
  });

  it.each<[string, Parse, string]>([
    ['start-run', parseStartRunEvent, '/runs'],
    ['plan-run', parsePlanRunEvent, '/runs/plan'],
  ])(
    '%s answers 400 to an event without a body key, and to one without a request id',
    (_name, parse, resource) => {
      // Prepare
      const { body: _dropped, ...withoutBody } = proxyEvent(resource, { httpMethod: 'POST' });
      const withoutRequestId = proxyEvent(resource, {
        httpMethod: 'POST',
        body: '{}',
        requestContext: { domainName: 'abc123.execute-api.us-east-1.amazonaws.com', stage: 'v1' },
      });

      // Act
      const noBody = refusalOf(parse(withoutBody));
      const noRequestId = refusalOf(parse(withoutRequestId));

      // Assert
      expect(noBody.issues).toEqual([
        {
          field: 'body',
          given: 'nothing',
          expected: 'the request body as text, or null (API Gateway sends the key, null without a body)',
        },
      ]);
      expect(noRequestId.issues).toEqual([
        {
          field: 'requestContext.requestId',
          given: 'nothing',
          expected: "API Gateway's request id (the run id when the body names none)",
        },
      ]);
    },
  );

  it('names every problem of an event at once', () => {
    // Act
    const body = refusalOf(parseStartRunEvent({ resource: '/runs/{id}', body: 42 }));

    // Assert
    expect(body.issues?.map((issue) => issue.field)).toEqual(['resource', 'body', 'requestContext']);
  });
});
