import { describeError, InvalidRunInputError } from '../contracts/index.js';
import type { AsyncInferenceDescription } from '../ports/index.js';
import type { DeniedAction, EndpointRoleReader, PolicyCheck, PolicySimulator } from './ports.js';

/**
 * A reused async endpoint runs as its own model's execution role, not the stack's: SageMaker reads
 * each input, writes each result and publishes each notification as that role (SageMaker developer
 * guide, "Asynchronous inference": the role needs s3:GetObject on the inputs, s3:PutObject on the
 * output path and sns:Publish on the topics). Publishing to a KMS-encrypted topic also needs
 * kms:GenerateDataKey and kms:Decrypt on the topic's key (Amazon SNS developer guide, "Encryption
 * at rest"). A role that lacks any of them leaves every input waiting for a notification that
 * never comes (the wait's timeout, hours), so the role is checked before the run starts, with
 * IAM's policy simulator.
 */

export interface ReusedEndpointRoleDeps {
  readonly roles: EndpointRoleReader;
  readonly simulator: PolicySimulator;
  readonly notificationTopics: { readonly successTopicArn: string; readonly errorTopicArn: string };
  /** The key that encrypts the topics; without it the KMS actions are not checked. */
  readonly topicsKeyArn?: string;
  readonly region: string;
}

/** Input objects simulated: one per folder, so a run of 700 inputs stays a few calls. */
const MAX_INPUT_ARNS = 10;

/**
 * Refuses a reused endpoint whose role is denied something the run needs, with the statement to
 * add. When the check itself cannot run, the run goes on and the returned warning says so.
 */
export async function checkReusedEndpointRole(
  endpointName: string,
  config: AsyncInferenceDescription,
  inputLocations: readonly string[],
  deps: ReusedEndpointRoleDeps,
): Promise<readonly string[]> {
  let roleArn: string | undefined;
  try {
    roleArn = await deps.roles.executionRoleOf(endpointName);
  } catch (error) {
    return [unchecked(endpointName, `reading its model's execution role failed: ${describeError(error)}`)];
  }
  if (roleArn === undefined)
    return [unchecked(endpointName, "its model's execution role could not be found")];

  const checks = roleChecks(config, inputLocations, deps);
  const simulation = await deps.simulator.simulate(roleArn, checks);
  if (simulation.status === 'unavailable') return [unchecked(endpointName, simulation.reason)];
  if (simulation.denied.length === 0) return [];
  throw new InvalidRunInputError([
    {
      field: 'endpointName',
      given: `${JSON.stringify(endpointName)} (its model's execution role ${roleArn} is denied ${describeDenied(simulation.denied)})`,
      expected: `an endpoint whose role may read the inputs, write the results and notify this stack's topics: add to ${roleArn} the statement(s) ${grantFor(
        simulation.denied,
        checks,
      )
        .map((statement) => JSON.stringify(statement))
        .join(' ')}`,
    },
  ]);
}

function unchecked(endpointName: string, why: string): string {
  return `The permissions of endpoint ${endpointName}'s execution role were not checked (${why}): if it cannot publish to this stack's topics, its inputs will wait until the wait's timeout. See docs/async.md, "IAM for reused endpoints".`;
}

export function roleChecks(
  config: AsyncInferenceDescription,
  inputLocations: readonly string[],
  deps: Pick<ReusedEndpointRoleDeps, 'notificationTopics' | 'topicsKeyArn' | 'region'>,
): PolicyCheck[] {
  const { successTopicArn, errorTopicArn } = deps.notificationTopics;
  const partition = successTopicArn.split(':')[1] ?? 'aws';
  const checks: PolicyCheck[] = [{ action: 'sns:Publish', resourceArns: [successTopicArn, errorTopicArn] }];
  if (deps.topicsKeyArn !== undefined) {
    // The stack allows the key only through SNS (kms:ViaService): the simulation must say so.
    const context = { 'kms:ViaService': `sns.${deps.region}.amazonaws.com` };
    for (const action of ['kms:GenerateDataKey', 'kms:Decrypt']) {
      checks.push({ action, resourceArns: [deps.topicsKeyArn], context });
    }
  }
  const inputs = firstPerFolder(inputLocations.filter((uri) => uri.startsWith('s3://'))).map((uri) =>
    objectArn(partition, uri),
  );
  if (inputs.length > 0) checks.push({ action: 's3:GetObject', resourceArns: inputs });
  const outputs = [config.s3OutputPath, config.s3FailurePath]
    .filter((path): path is string => path !== undefined)
    .map((path) => objectArn(partition, `${path.replace(/\/$/, '')}/mso-permission-check.out`));
  if (outputs.length > 0) checks.push({ action: 's3:PutObject', resourceArns: outputs });
  return checks;
}

function firstPerFolder(uris: readonly string[]): string[] {
  const byFolder = new Map<string, string>();
  for (const uri of uris) {
    const folder = uri.slice(0, uri.lastIndexOf('/') + 1);
    if (!byFolder.has(folder)) byFolder.set(folder, uri);
    if (byFolder.size === MAX_INPUT_ARNS) break;
  }
  return [...byFolder.values()];
}

/** `s3://bucket/key` → `arn:<partition>:s3:::bucket/key`. */
function objectArn(partition: string, uri: string): string {
  return `arn:${partition}:s3:::${uri.slice('s3://'.length)}`;
}

function describeDenied(denied: readonly DeniedAction[]): string {
  return denied.map((d) => `${d.action} on ${d.resourceArn} (${d.decision})`).join(', ');
}

/** The IAM statements that grant what was denied (S3 objects widened to their folder). */
function grantFor(
  denied: readonly DeniedAction[],
  checks: readonly PolicyCheck[],
): Record<string, unknown>[] {
  const statements = new Map<
    string,
    { actions: string[]; resources: string[]; context?: Readonly<Record<string, string>> }
  >();
  for (const check of checks) {
    const resources = [
      ...new Set(
        denied
          .filter((d) => d.action === check.action)
          .map((d) =>
            d.action.startsWith('s3:')
              ? `${d.resourceArn.slice(0, d.resourceArn.lastIndexOf('/'))}/*`
              : d.resourceArn,
          ),
      ),
    ];
    if (resources.length === 0) continue;
    const key = JSON.stringify([resources, check.context ?? null]);
    const statement = statements.get(key);
    if (statement === undefined) {
      statements.set(key, {
        actions: [check.action],
        resources,
        ...(check.context === undefined ? {} : { context: check.context }),
      });
    } else {
      statement.actions.push(check.action);
    }
  }
  return [...statements.values()].map((statement) => ({
    Effect: 'Allow',
    Action: statement.actions,
    Resource: statement.resources,
    ...(statement.context === undefined ? {} : { Condition: { StringEquals: statement.context } }),
  }));
}
