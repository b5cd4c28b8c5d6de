/**
 * Deterministic stand-ins for what CloudFormation resolves at deploy time. Locally there is no
 * account or region; these values make every resolved definition identical from run to run.
 */
export const LOCAL_PARTITION = 'aws';
export const LOCAL_REGION = 'local';
export const LOCAL_ACCOUNT_ID = '000000000000';
export const LOCAL_URL_SUFFIX = 'amazonaws.com';

export function localFunctionArn(functionName: string): string {
  return `arn:${LOCAL_PARTITION}:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:function:${functionName}`;
}

export function localStateMachineArn(stateMachineName: string): string {
  return `arn:${LOCAL_PARTITION}:states:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:stateMachine:${stateMachineName}`;
}

export function localExecutionArn(stateMachineName: string, executionName: string): string {
  return `arn:${LOCAL_PARTITION}:states:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:execution:${stateMachineName}:${executionName}`;
}

/** `Fn::GetAtt`/`Ref` of a resource → its standIn. `attribute` is `Ref` for a `Ref`. */
export function localStandIn(logicalId: string, type: string, attribute: string): string {
  if (type === 'AWS::Lambda::Function') {
    // Ref of a function is its name; its Arn embeds that name, so both point at the same function.
    if (attribute === 'Arn') return localFunctionArn(logicalId);
    if (attribute === 'Ref') return logicalId;
  }
  return `local:${logicalId}:${attribute}`;
}

/** The function name in a Lambda ARN (with or without a qualifier), or the value itself if it is a bare name. */
export function lambdaFunctionName(functionNameOrArn: string): string | undefined {
  const arn = /^arn:aws[\w-]*:lambda:[^:]*:[^:]*:function:([^:]+)(?::[^:]+)?$/.exec(functionNameOrArn);
  if (arn) return arn[1];
  return /^[\w-]+$/.test(functionNameOrArn) ? functionNameOrArn : undefined;
}
