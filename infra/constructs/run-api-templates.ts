import { ApiErrorCodes } from '../../handlers/run-status/run-api-contract.js';

/**
 * The mapping templates (Velocity, VTL) of the `POST` methods' StartExecution integration. They run
 * inside API Gateway, so test/infra/constructs/run-api-templates.test.ts renders them with a VTL
 * engine and API Gateway's `$input`, `$util` and `$context` to check what they produce.
 *
 * Escaping: the execution input is a JSON document inside a JSON string. `$util.escapeJavaScript`
 * escapes it, but also turns `'` into `\'`, which JSON does not allow, so every use is followed by
 * `.replaceAll("\\'", "'")` (the fix API Gateway's mapping-template reference gives; CDK's
 * StepFunctionsRestApi template does the same). In Velocity, string literals keep backslashes as
 * written, so the first argument is the Java regex `\\'`: a backslash followed by a quote.
 */

/** `$util.escapeJavaScript(<expression>)` made valid inside a JSON string. */
function jsonString(expression: string): string {
  return `$util.escapeJavaScript(${expression}).replaceAll("\\\\'", "'")`;
}

/**
 * Request body → StartExecution: the client's `runId` becomes the execution `name` (a retried
 * request cannot start a second run); without one, API Gateway's request id is used. The request
 * model has already checked the body (`runId` pattern, `input` shape) before this runs.
 */
export function startExecutionRequestTemplate(stateMachineArn: string): string {
  return [
    `#set($runId = "$!input.path('$.runId')")`,
    `#if($runId == "")`,
    `#set($runId = $context.requestId)`,
    `#end`,
    `{`,
    `  "stateMachineArn": "${stateMachineArn}",`,
    `  "name": "$runId",`,
    `  "input": "${jsonString(`$input.json('$.input')`)}"`,
    `}`,
  ].join('\n');
}

/**
 * StartExecution 200 → `{ runId, executionArn, startDate, statusUrl }`. The run id is read back
 * from the execution ARN (`…:execution:<state machine>:<name>`): the response template cannot see
 * the request. `statusUrl` is the execute-api URL of `GET /<resource>/{id}` on this stage.
 */
export function startedRunResponseTemplate(resource: string): string {
  return [
    `#set($executionArn = "$!input.path('$.executionArn')")`,
    `#set($nameStart = $executionArn.lastIndexOf(':') + 1)`,
    `#set($runId = $executionArn.substring($nameStart))`,
    `{`,
    `  "runId": "$runId",`,
    `  "executionArn": "$executionArn",`,
    `  "startDate": $input.json('$.startDate'),`,
    `  "statusUrl": "https://$context.domainName/$context.stage/${resource}/$runId"`,
    `}`,
  ].join('\n');
}

/**
 * StartExecution 4xx → the API's answer. Step Functions names the error in `__type`
 * (`com.amazonaws.swf.service.v2.model#ExecutionAlreadyExists`), and API Gateway selects the
 * integration response on the status code only, so the template picks the status
 * (`$context.responseOverride.status`, API Gateway "Override your API's … status codes"):
 *
 * - `ExecutionAlreadyExists` → 409: the name is taken by a run with another input, or by a run that
 *   has ended (StartExecution is idempotent only for a RUNNING execution with the same input);
 * - `InvalidName`, `InvalidExecutionInput`, `ValidationException` → 400;
 * - `ExecutionLimitExceeded`, throttling → 429, to retry later with the same run id;
 * - anything else (`StateMachineDoesNotExist`, `AccessDeniedException`, …) → 500: the API's own
 *   configuration is wrong, not the request.
 */
export function startRefusedResponseTemplate(): string {
  return [
    `#set($type = "$!input.path('$.__type')")`,
    `#set($rawMessage = "$!input.path('$.message')")`,
    `#set($message = ${jsonString('$rawMessage')})`,
    `#if($type.endsWith('ExecutionAlreadyExists'))`,
    `#set($context.responseOverride.status = 409)`,
    `{"error": "${ApiErrorCodes.runAlreadyExists}", "message": "A run with this id already exists: Step Functions ` +
      `accepts an execution name again only while that run is RUNNING with the same input (it then returns ` +
      `the same run), and refuses it for 90 days otherwise. Get its status, or start with another runId. ` +
      `Step Functions said: $message"}`,
    `#elseif($type.endsWith('InvalidName') || $type.endsWith('InvalidExecutionInput') || $type.endsWith('ValidationException'))`,
    `{"error": "${ApiErrorCodes.invalidRequest}", "message": "Step Functions refused the run input or name: $message"}`,
    `#elseif($type.endsWith('ExecutionLimitExceeded') || $type.endsWith('ThrottlingException'))`,
    `#set($context.responseOverride.status = 429)`,
    `{"error": "${ApiErrorCodes.throttled}", "message": "Too many runs at once: $message. Retry later with the ` +
      `same runId: a retry cannot start a second run."}`,
    `#else`,
    `#set($context.responseOverride.status = 500)`,
    `{"error": "${ApiErrorCodes.startRefused}", "message": "Step Functions refused the API's StartExecution ` +
      `($type): $message. The API's integration role or state machine needs fixing (see RunApi)."}`,
    `#end`,
  ].join('\n');
}

/** StartExecution 5xx → 503: Step Functions is unavailable; the same request can be retried safely. */
export function stepFunctionsUnavailableTemplate(): string {
  return [
    `#set($rawMessage = "$!input.path('$.message')")`,
    `#set($message = ${jsonString('$rawMessage')})`,
    `{"error": "${ApiErrorCodes.serviceUnavailable}", "message": "Step Functions could not start the run ` +
      `now: $message. Retry with the same runId: a retry cannot start a second run."}`,
  ].join('\n');
}
