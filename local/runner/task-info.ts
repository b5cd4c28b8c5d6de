import type { VisitedState } from './asl.js';
import { stringField } from './asl.js';
import type { ResourceReference } from './cloudformation-tokens.js';
import type { JsonValue } from './json.js';
import { isJsonObject } from './json.js';
import { lambdaFunctionName } from './local-arns.js';
import { isRecord } from '../../core/contracts/index.js';

/** What the caller's resolver learns about a Task state, to pick the local handler that serves it. */
export interface TaskInfo {
  readonly stateName: string;
  /** The `Resource` field, as in the definition. */
  readonly resource: string;
  /**
   * `lambda`: `arn:aws:states:::lambda:invoke[.waitForTaskToken]` or a function ARN as Resource;
   * `aws-sdk`: `arn:aws:states:::aws-sdk:<service>:<action>`; `other`: every other integration or activity.
   */
  readonly integration: 'lambda' | 'aws-sdk' | 'other';
  /** e.g. `lambda`, `sagemaker`, `sns`; absent for activities. */
  readonly service?: string;
  /** e.g. `invoke`, `describeEndpoint`, `publish`. */
  readonly action?: string;
  readonly waitForTaskToken: boolean;
  /** Lambda only: the function name in `FunctionName` or the Resource ARN (the logical ID for a stand-in ARN). */
  readonly functionName?: string;
  /** Lambda only: the logical ID of the function, when the definition came from `extractStateMachines`. */
  readonly functionLogicalId?: string;
  /** Lambda only: the function's `STEP_NAME` environment variable (e.g. `deploy-candidate`). */
  readonly stepName?: string;
  /** The `Parameters` template of the state, unevaluated. */
  readonly parameters?: JsonValue;
}

/**
 * How the runner calls the handler and shapes its result. `lambda-invoke` wraps the result in the
 * Lambda Invoke response (`{ Payload, StatusCode, ... }`); `lambda-function` (a function ARN as
 * Resource, CDK's `payloadResponseOnly`) and the others return it as is.
 */
export type TaskCallStyle = 'lambda-invoke' | 'lambda-function' | 'service';

export interface PreparedTask {
  readonly info: TaskInfo;
  readonly callStyle: TaskCallStyle;
  readonly timeoutSeconds?: number;
  readonly heartbeatSeconds?: number;
}

const SERVICE_INTEGRATION = /^arn:aws[\w-]*:states:::(.+)$/;
const PATTERN_SUFFIX = /\.(waitForTaskToken|sync(?::\d+)?)$/;
const STEP_NAME_VARIABLE = 'STEP_NAME';

export function describeTask(
  { name, state }: VisitedState,
  references: Readonly<Record<string, ResourceReference>>,
): PreparedTask {
  const resource = stringField(state, 'Resource');
  if (resource === undefined) {
    throw new Error(`Task "${name}": expected a Resource string, got ${JSON.stringify(state.Resource)}`);
  }
  const parameters = state.Parameters;
  const timing = {
    ...positiveNumber(state, 'TimeoutSeconds', name),
    ...positiveNumber(state, 'HeartbeatSeconds', name),
  };
  const base = { stateName: name, resource, ...(parameters === undefined ? {} : { parameters }) };

  const integration = SERVICE_INTEGRATION.exec(resource)?.[1];
  if (integration === undefined) {
    const functionName = lambdaFunctionName(resource);
    if (functionName !== undefined && resource.startsWith('arn:')) {
      return {
        info: {
          ...base,
          integration: 'lambda',
          service: 'lambda',
          action: 'invoke',
          waitForTaskToken: false,
          ...functionFields(functionName, references),
        },
        callStyle: 'lambda-function',
        ...timing,
      };
    }
    return {
      info: { ...base, integration: 'other', waitForTaskToken: false },
      callStyle: 'service',
      ...timing,
    };
  }

  const pattern = PATTERN_SUFFIX.exec(integration)?.[1];
  const waitForTaskToken = pattern === 'waitForTaskToken';
  const [first = '', second = '', third] = integration.replace(PATTERN_SUFFIX, '').split(':');
  if (waitForTaskToken) assertPassesTaskToken(name, parameters);

  if (first === 'aws-sdk') {
    return {
      info: { ...base, integration: 'aws-sdk', service: second, action: third ?? '', waitForTaskToken },
      callStyle: 'service',
      ...timing,
    };
  }
  if (first === 'lambda' && second === 'invoke') {
    return {
      info: {
        ...base,
        integration: 'lambda',
        service: 'lambda',
        action: 'invoke',
        waitForTaskToken,
        ...functionFields(invokedFunctionName(name, parameters), references),
      },
      callStyle: 'lambda-invoke',
      ...timing,
    };
  }
  return {
    info: { ...base, integration: 'other', service: first, action: second, waitForTaskToken },
    callStyle: 'service',
    ...timing,
  };
}

function invokedFunctionName(stateName: string, parameters: JsonValue | undefined): string {
  const fields = isJsonObject(parameters) ? parameters : {};
  const { FunctionName: functionName, InvocationType: invocationType } = fields;
  if (invocationType !== undefined && invocationType !== 'RequestResponse') {
    throw new Error(
      `Task "${stateName}": InvocationType ${JSON.stringify(invocationType)} is not supported locally; expected RequestResponse (the default)`,
    );
  }
  const name = typeof functionName === 'string' ? lambdaFunctionName(functionName) : undefined;
  if (name === undefined) {
    throw new Error(
      `Task "${stateName}": expected Parameters.FunctionName to be a static function name or ARN, got ${JSON.stringify(functionName ?? fields['FunctionName.$'])}; a function chosen at run time cannot be resolved locally`,
    );
  }
  return name;
}

function functionFields(
  functionName: string,
  references: Readonly<Record<string, ResourceReference>>,
): Pick<TaskInfo, 'functionName' | 'functionLogicalId' | 'stepName'> {
  const reference = Object.values(references).find(
    (candidate) => candidate.type === 'AWS::Lambda::Function' && candidate.logicalId === functionName,
  );
  if (!reference) return { functionName };
  const stepName = stepNameOf(reference);
  return {
    functionName,
    functionLogicalId: reference.logicalId,
    ...(stepName === undefined ? {} : { stepName }),
  };
}

function stepNameOf(reference: ResourceReference): string | undefined {
  const environment = reference.properties.Environment;
  const variables = isRecord(environment) ? environment.Variables : undefined;
  const stepName = isRecord(variables) ? variables[STEP_NAME_VARIABLE] : undefined;
  return typeof stepName === 'string' ? stepName : undefined;
}

/** AWS rejects a `.waitForTaskToken` task whose Parameters do not pass `$$.Task.Token`; so do we. */
function assertPassesTaskToken(stateName: string, parameters: JsonValue | undefined): void {
  if (!JSON.stringify(parameters ?? null).includes('$$.Task.Token')) {
    throw new Error(
      `Task "${stateName}": uses .waitForTaskToken but its Parameters do not pass $$.Task.Token (CDK: JsonPath.taskToken), so nothing could ever resume it`,
    );
  }
}

function positiveNumber(
  state: Readonly<Record<string, unknown>>,
  field: 'TimeoutSeconds' | 'HeartbeatSeconds',
  stateName: string,
): { timeoutSeconds?: number } | { heartbeatSeconds?: number } {
  const value = state[field];
  if (value === undefined) return {};
  if (typeof value !== 'number' || !(value > 0)) {
    throw new Error(`Task "${stateName}": expected ${field} > 0, got ${JSON.stringify(value)}`);
  }
  return field === 'TimeoutSeconds' ? { timeoutSeconds: value } : { heartbeatSeconds: value };
}
