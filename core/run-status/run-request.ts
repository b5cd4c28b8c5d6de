import { z } from 'zod';
import {
  describeError,
  type InputIssue,
  InvalidRunInputError,
  describeGiven,
  inputBoundIssues,
  jsonTextBoundIssues,
  apiFailure,
  type ApiReply,
  ApiErrorCodes,
  describeInvalidRunId,
  RUN_ID_EXPECTED,
  RUN_PLAN_PATH,
  type RunWorkflow,
  RunWorkflows,
} from '../contracts/index.js';
import {
  asyncInputIssues,
  type InputRuleContext,
  optimizationInputIssues,
  parseAsyncRunInput,
  parseRunInput,
} from '../planning/index.js';
import {
  parseProxyEvent,
  type ParsedEvent,
  requestContextSchema,
  resourceSchema,
  type RunRoute,
} from './proxy-event.js';

/**
 * What the run API's two body-carrying routes share, `POST /<r>` (start-run) and `POST /<r>/plan`
 * (plan-run): reading the request from the proxy event, and checking its body `{ runId?, input }`
 * with the workflow's own run-input schema and the one input-error formatter, so a refusal lists
 * the same issues (field, given, expected) from either route, the CLIs and the first state.
 */

export interface RunRequest {
  readonly workflow: RunWorkflow;
  /** The request body as received (API Gateway passes it as text). */
  readonly body: string | null;
  /** The request's `Content-Type`, when it has one. */
  readonly contentType: string | undefined;
  /** API Gateway's request id: the run id when the body names none. */
  readonly requestId: string;
  /** `https://<domain>/<stage>`: where the status URL points. */
  readonly stageUrl: string;
}

/**
 * The part of the proxy event these routes read. API Gateway sends `body: null` for a request
 * without one, so an event without the key did not come from it.
 */
const requestEventSchema = z.object({
  resource: resourceSchema,
  body: z
    .string({ error: 'the request body as text, or null (API Gateway sends the key, null without a body)' })
    .nullable(),
  isBase64Encoded: z.boolean().nullish(),
  headers: z.record(z.string(), z.string().optional()).nullish(),
  requestContext: requestContextSchema({
    requestId: z.string({ error: "API Gateway's request id (the run id when the body names none)" }).min(1),
    domainName: z.string({ error: "the API's domain name (the status URL points there)" }),
    stage: z.string({ error: 'the stage name (the status URL points there)' }),
  }),
});

/**
 * Reads a proxy event of `route` (`/<r>` starts, `/<r>/plan` plans), or answers 400 for an event
 * API Gateway would not send.
 */
export function parseRunRequestEvent(event: unknown, route: RunRoute): ParsedEvent<RunRequest> {
  const parsed = parseProxyEvent(event, requestEventSchema, route);
  if ('refusal' in parsed) return parsed;
  const { workflow, event: read } = parsed.request;
  const { body, isBase64Encoded, headers, requestContext } = read;
  const contentType = Object.entries(headers ?? {}).find(
    ([name]) => name.toLowerCase() === 'content-type',
  )?.[1];
  return {
    request: {
      workflow,
      body: body !== null && isBase64Encoded === true ? Buffer.from(body, 'base64').toString('utf8') : body,
      contentType,
      requestId: requestContext.requestId,
      stageUrl: `https://${requestContext.domainName}/${requestContext.stage}`,
    },
  };
}

/** The fields of the request body beside the run input. */
const ENVELOPE_FIELDS: readonly string[] = ['runId', 'input'];

/** A body that passed every check, or the API's answer to one that did not (415 or 400). */
export type CheckedRunRequest =
  { readonly runId: string; readonly input: unknown } | { readonly refusal: ApiReply<never> };

/** The 400 answer of a refused run input: every issue, as the first state words them. */
export function invalidRunInputReply(issues: readonly InputIssue[]): ApiReply<never> {
  const error = new InvalidRunInputError(issues);
  return {
    statusCode: 400,
    body: { error: ApiErrorCodes.invalidRunInput, message: error.message, issues: [...issues] },
  };
}

/**
 * The body as the first state will see it: JSON, `{ runId?, input }`, a valid run id, the input
 * valid for the workflow's schema and for its first state's rules that need no AWS read
 * (planning/input-rules.ts, in `rules.servingRegion`), within the nesting and
 * size bounds (`inputBoundIssues`, checked first: Step Functions' execution input quota included,
 * which StartExecution would refuse with InvalidExecutionInput). Every problem at once once the
 * input is within its bounds.
 */
export function checkRunRequest(request: RunRequest, rules: InputRuleContext = {}): CheckedRunRequest {
  const mediaType = request.contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== undefined && mediaType !== 'application/json') {
    return {
      refusal: apiFailure(
        415,
        ApiErrorCodes.invalidRequest,
        `The request body must be JSON: got Content-Type ${request.contentType}, expected application/json`,
      ),
    };
  }
  const checked = checkBody(request, rules);
  return 'issues' in checked ? { refusal: invalidRunInputReply(checked.issues) } : checked;
}

type CheckedBody =
  { readonly runId: string; readonly input: unknown } | { readonly issues: readonly InputIssue[] };

function checkBody(request: RunRequest, rules: InputRuleContext): CheckedBody {
  // Before JSON.parse builds them: a body nested 100,000 levels deep is refused at level 33.
  const depth = jsonTextBoundIssues(request.body ?? '', ['input']);
  if (depth.length > 0) return { issues: depth };
  let document: unknown;
  try {
    document = JSON.parse(request.body ?? '');
  } catch (error) {
    return {
      issues: [
        {
          field: '(body)',
          given: request.body === null || request.body === '' ? 'no body' : describeGiven(request.body),
          expected: `a JSON document { "runId"?, "input" } (${describeError(error)})`,
        },
      ],
    };
  }
  if (
    typeof document !== 'object' ||
    document === null ||
    Array.isArray(document) ||
    !('input' in document)
  ) {
    return {
      issues: [
        {
          field: '(body)',
          given: describeGiven(document),
          expected: 'an object { "runId"?, "input" } with the run input under "input"',
        },
      ],
    };
  }
  const body = document as Readonly<Record<string, unknown>>;
  // Depth and size first, as the first state checks them: nothing below walks an unbounded input.
  const bounds = inputBoundIssues(body.input);
  if (bounds.length > 0) return { issues: bounds };
  const issues: InputIssue[] = Object.keys(body)
    .filter((key) => !ENVELOPE_FIELDS.includes(key))
    .map((key) => ({
      field: key,
      given: describeGiven(body[key]),
      expected:
        'no such field: the body has "runId" (optional) and "input"; the run input goes under "input"',
    }));
  const runId = body.runId === undefined ? request.requestId : body.runId;
  if (typeof runId !== 'string' || describeInvalidRunId(runId) !== undefined) {
    issues.push({ field: 'runId', given: describeGiven(body.runId), expected: RUN_ID_EXPECTED });
  } else if (runId === RUN_PLAN_PATH) {
    // `GET /<resource>/plan` is not `GET /<resource>/{id}`: such a run could not be read here.
    issues.push({
      field: 'runId',
      given: describeGiven(runId),
      expected: `another id: /${RUN_PLAN_PATH} is the plan route, so a run named so could not be read through the API`,
    });
  }
  try {
    // Each input also meets its first state's rules that need no AWS read.
    if (request.workflow === RunWorkflows.optimization) {
      issues.push(...optimizationInputIssues(parseRunInput(body.input), rules));
    } else {
      issues.push(...asyncInputIssues(parseAsyncRunInput(body.input), rules));
    }
  } catch (error) {
    if (!(error instanceof InvalidRunInputError)) throw error;
    issues.push(...error.issues);
  }
  return issues.length > 0 || typeof runId !== 'string' ? { issues } : { runId, input: body.input };
}
