import { z } from 'zod';
import {
  describeIssues,
  type InputIssue,
  SUPPORT_FUNCTIONS,
  isRecord,
  describeGiven,
  toInputIssues,
  type ApiReply,
  ApiErrorCodes,
  RUN_PLAN_PATH,
  RUN_RESOURCES,
  RUN_SUBRESOURCES,
  type RunWorkflow,
} from '../contracts/index.js';

/**
 * How every run API Lambda reads its event: API Gateway's REST proxy event (Lambda proxy
 * integration, payload format 1.0; API Gateway developer guide, "Lambda proxy integrations in API
 * Gateway", input format,
 * https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html#api-gateway-simple-proxy-for-lambda-input-format).
 * API Gateway sends every key of that format on every request: `resource` (the route's template,
 * e.g. `/runs/{id}`), `body` (`null` without one), `pathParameters` and `queryStringParameters`
 * (`null` when there are none), and `requestContext` with the request id, stage and domain name.
 *
 * An event without a key its route reads, or of a route the Lambda does not serve, came from
 * elsewhere (a console test, `aws lambda invoke`, a misrouted integration). It is answered 400
 * naming each missing or wrong key, never thrown: a thrown error reaches a caller through the API
 * as a bare 502, and says nothing of what was wrong.
 */

/** One route a Lambda serves, under each workflow's resource (`<r>` stands for it). */
export interface RunRoute {
  /** The Lambda, as named in its answers (e.g. `start-run`). */
  readonly handler: string;
  readonly method: 'GET' | 'POST';
  /** e.g. `/<r>`, `/<r>/{id}/stop`. */
  readonly path: string;
}

/** Each Lambda's route, as infra/constructs/run-api.ts adds it under `/runs` and `/async-runs`. */
export const RUN_ROUTES = {
  start: { handler: SUPPORT_FUNCTIONS.startRun, method: 'POST', path: '/<r>' },
  plan: { handler: SUPPORT_FUNCTIONS.planRun, method: 'POST', path: `/<r>/${RUN_PLAN_PATH}` },
  describe: { handler: SUPPORT_FUNCTIONS.describeRun, method: 'GET', path: '/<r>/{id}' },
  list: { handler: SUPPORT_FUNCTIONS.listRuns, method: 'GET', path: '/<r>' },
  stop: { handler: SUPPORT_FUNCTIONS.stopRun, method: 'POST', path: `/<r>/{id}/${RUN_SUBRESOURCES.stop}` },
  events: {
    handler: SUPPORT_FUNCTIONS.runEvents,
    method: 'GET',
    path: `/<r>/{id}/${RUN_SUBRESOURCES.events}`,
  },
  report: {
    handler: SUPPORT_FUNCTIONS.runReport,
    method: 'GET',
    path: `/<r>/{id}/${RUN_SUBRESOURCES.report}`,
  },
} as const satisfies Readonly<Record<string, RunRoute>>;

/** A request read from its event, or the 400 answer to an event API Gateway would not send. */
export type ParsedEvent<Request> = { readonly request: Request } | { readonly refusal: ApiReply<never> };

/** Every route template, as API Gateway writes it in `resource`, with its workflow. */
function routeResources(route: RunRoute): [RunWorkflow, string][] {
  return Object.entries(RUN_RESOURCES).map(([workflow, resource]) => [
    workflow as RunWorkflow,
    route.path.replace('<r>', resource),
  ]);
}

/** `resource`: API Gateway names the route template it matched there. */
export const resourceSchema = z.string({ error: 'the route template API Gateway matched, e.g. "/runs"' });

/** `requestContext`, of which a route reads `shape`: API Gateway describes every request there. */
export function requestContextSchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape, {
    error: 'an object: API Gateway describes every request there (request id, stage, caller)',
  });
}

/**
 * Parses `event` with `schema` (a proxy event as one route reads it) and finds the workflow from
 * its `resource`; every problem at once. The schema's own messages say what API Gateway sends.
 */
export function parseProxyEvent<Schema extends z.ZodType<{ readonly resource: string }>>(
  event: unknown,
  schema: Schema,
  route: RunRoute,
): ParsedEvent<{ readonly workflow: RunWorkflow; readonly event: z.output<Schema> }> {
  const resources = routeResources(route);
  const parsed = schema.safeParse(event, { reportInput: true });
  const issues: InputIssue[] = parsed.success ? [] : toInputIssues(parsed.error).map(asEventField);
  const resource: unknown = isRecord(event) ? event.resource : undefined;
  const workflow = resources.find(([, template]) => template === resource)?.[0];
  if (typeof resource === 'string' && workflow === undefined) {
    issues.unshift({
      field: 'resource',
      given: describeGiven(resource),
      expected: `one of ${resources.map(([, template]) => template).join(', ')} (the routes ${route.handler} serves)`,
    });
  }
  if (!parsed.success || workflow === undefined) {
    return { refusal: invalidEventReply(route, resources, issues) };
  }
  return { request: { workflow, event: parsed.data } };
}

/** `(input)` is how the formatter names the document itself: here it is the event. */
function asEventField(issue: InputIssue): InputIssue {
  return issue.field === '(input)' ? { ...issue, field: '(event)' } : issue;
}

function invalidEventReply(
  route: RunRoute,
  resources: readonly [RunWorkflow, string][],
  issues: readonly InputIssue[],
): ApiReply<never> {
  const routes = resources.map(([, template]) => `${route.method} ${template}`).join(' or ');
  return {
    statusCode: 400,
    body: {
      error: ApiErrorCodes.invalidRequest,
      message:
        `${route.handler}: got an event API Gateway does not send, expected its REST proxy event (Lambda ` +
        `proxy integration) of ${routes}: ${describeIssues(issues)}`,
      issues: [...issues],
    },
  };
}
