import { type Binding, TemplateResolver, type TemplateResolverOptions } from './template-resolver.js';

/**
 * What IAM would evaluate in the deployed stack, read from the synthesized template: each
 * function's role and its policies, the resource policies (bucket policies, key policies) and
 * which KMS key encrypts which bucket, table and topic, all resolved to the fake account's ARNs.
 */

export interface PolicyDocument {
  readonly Version?: string;
  readonly Statement: readonly Record<string, unknown>[];
}

export interface NamedPolicy {
  readonly name: string;
  readonly policy: PolicyDocument;
}

type Resource = { readonly Type: string; readonly Properties?: Record<string, unknown> };

/** `{ Ref: id }` or `{ 'Fn::GetAtt': [id, attribute] }` → the logical id and what is asked of it. */
function referenced(value: unknown): { logicalId: string; attribute?: string } | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.Ref === 'string') return { logicalId: record.Ref };
  const getAtt = record['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string' && typeof getAtt[1] === 'string') {
    return { logicalId: getAtt[0], attribute: getAtt[1] };
  }
  return undefined;
}

/**
 * Binds the logical ids that the Lambdas' environment variables reference to the values the
 * conformance layer gives those variables (the artifacts bucket the examples name, the token
 * table, the topics, the SageMaker execution role): the policies then name the resources the
 * requests do, as they would in a deployment whose Lambdas read these variables. A variable the
 * template binds to two resources, or to one it cannot tell the kind of, fails naming it.
 */
export function bindingsFromEnvironment(
  template: Readonly<Record<string, unknown>>,
  values: Readonly<Record<string, string>>,
): Map<string, Binding> {
  const bindings = new Map<string, Binding>();
  const seen = new Map<string, string>();
  for (const resource of Object.values((template.Resources ?? {}) as Record<string, Resource>)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const variables =
      (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ??
      {};
    for (const [variable, value] of Object.entries(variables)) {
      const given = values[variable];
      const reference = referenced(value);
      if (given === undefined || reference === undefined) continue;
      const earlier = seen.get(variable);
      if (earlier !== undefined && earlier !== reference.logicalId) {
        throw new Error(
          `${variable} references ${earlier} in one Lambda and ${reference.logicalId} in another; expected one resource`,
        );
      }
      seen.set(variable, reference.logicalId);
      if (reference.attribute === undefined) bindings.set(reference.logicalId, { ref: given });
      else if (reference.attribute === 'Arn') bindings.set(reference.logicalId, { arn: given });
      else
        throw new Error(
          `${variable}: Fn::GetAtt ${reference.attribute} cannot be bound; expected Ref or Arn`,
        );
    }
  }
  return bindings;
}

export interface DeployedFunction {
  /** The Lambda's `STEP_NAME`. */
  readonly step: string;
  readonly logicalId: string;
  readonly roleLogicalId: string;
}

export class DeployedPolicies {
  readonly resolver: TemplateResolver;
  private readonly resources: Readonly<Record<string, Resource>>;

  constructor(options: TemplateResolverOptions) {
    this.resolver = new TemplateResolver(options);
    this.resources = (options.template.Resources ?? {}) as Record<string, Resource>;
  }

  /** Every Lambda that carries a `STEP_NAME`, keyed by it. */
  functions(): Map<string, DeployedFunction> {
    const functions = new Map<string, DeployedFunction>();
    for (const [logicalId, resource] of this.entries('AWS::Lambda::Function')) {
      const step = (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)
        ?.Variables?.STEP_NAME;
      const role = referenced(resource.Properties?.Role);
      if (typeof step !== 'string' || role === undefined) continue;
      if (functions.has(step)) throw new Error(`Two Lambdas carry STEP_NAME ${step}; expected one`);
      functions.set(step, { step, logicalId, roleLogicalId: role.logicalId });
    }
    return functions;
  }

  /** The function whose `STEP_NAME` is `step`; throws naming the steps there are. */
  function(step: string): DeployedFunction {
    const found = this.functions().get(step);
    if (found === undefined) {
      throw new Error(
        `No Lambda of the template carries STEP_NAME ${step}; expected one of ${[...this.functions().keys()].join(', ')}`,
      );
    }
    return found;
  }

  /**
   * The identity policies of a role: its inline `Policies` and every AWS::IAM::Policy or
   * AWS::IAM::ManagedPolicy attached to it. A managed policy given by ARN (an AWS managed policy)
   * is not in the template and cannot be evaluated offline: it fails, naming it.
   */
  rolePolicies(roleLogicalId: string): NamedPolicy[] {
    const role = this.resolver.resource(roleLogicalId);
    const managedArns = (role.Properties?.ManagedPolicyArns ?? []) as unknown[];
    const policies: NamedPolicy[] = [];
    for (const managed of managedArns) {
      const reference = referenced(managed);
      const resource = reference === undefined ? undefined : this.resources[reference.logicalId];
      if (reference === undefined || resource?.Type !== 'AWS::IAM::ManagedPolicy') {
        throw new Error(
          `Role ${roleLogicalId} has managed policy ${JSON.stringify(managed)}, which the template does not hold; ` +
            'expected policies of the template only',
        );
      }
    }
    for (const inline of (role.Properties?.Policies ?? []) as {
      PolicyName: unknown;
      PolicyDocument: unknown;
    }[]) {
      policies.push({
        name: this.resolver.resolveString(inline.PolicyName),
        policy: this.resolver.resolve(inline.PolicyDocument) as PolicyDocument,
      });
    }
    for (const [logicalId, resource] of [
      ...this.entries('AWS::IAM::Policy'),
      ...this.entries('AWS::IAM::ManagedPolicy'),
    ]) {
      const roles = (resource.Properties?.Roles ?? []) as unknown[];
      const attachedByRole = managedArns.some((arn) => referenced(arn)?.logicalId === logicalId);
      if (!attachedByRole && !roles.some((role) => referenced(role)?.logicalId === roleLogicalId)) continue;
      policies.push({
        name: logicalId,
        policy: this.resolver.resolve(resource.Properties?.PolicyDocument) as PolicyDocument,
      });
    }
    return policies;
  }

  /** The role of the template whose ARN is `arn`; throws naming it when the template has none. */
  roleByArn(arn: string): string {
    const found = this.entries('AWS::IAM::Role').find(([logicalId]) => this.resolver.arn(logicalId) === arn);
    if (found === undefined)
      throw new Error(`No role of the template has ARN ${arn}; expected one of the stack's roles`);
    return found[0];
  }

  /** The bucket policy of each bucket, keyed by bucket name. */
  bucketPolicies(): Map<string, PolicyDocument> {
    const policies = new Map<string, PolicyDocument>();
    for (const [, resource] of this.entries('AWS::S3::BucketPolicy')) {
      policies.set(
        this.resolver.resolveString(resource.Properties?.Bucket),
        this.resolver.resolve(resource.Properties?.PolicyDocument) as PolicyDocument,
      );
    }
    return policies;
  }

  /** The key policy of each KMS key, keyed by key ARN. */
  keyPolicies(): Map<string, PolicyDocument> {
    const policies = new Map<string, PolicyDocument>();
    for (const [logicalId, resource] of this.entries('AWS::KMS::Key')) {
      policies.set(
        this.resolver.arn(logicalId),
        this.resolver.resolve(resource.Properties?.KeyPolicy) as PolicyDocument,
      );
    }
    return policies;
  }

  /**
   * The customer managed key each bucket (by name), table (by name) and topic (by ARN) is
   * encrypted with: a request to it makes the service call KMS with the caller's rights.
   */
  encryptionKeys(): {
    buckets: Map<string, string>;
    tables: Map<string, string>;
    topics: Map<string, string>;
  } {
    const buckets = new Map<string, string>();
    const tables = new Map<string, string>();
    const topics = new Map<string, string>();
    for (const [logicalId, resource] of this.entries('AWS::S3::Bucket')) {
      const rules = ((
        resource.Properties?.BucketEncryption as { ServerSideEncryptionConfiguration?: unknown[] } | undefined
      )?.ServerSideEncryptionConfiguration ?? []) as {
        ServerSideEncryptionByDefault?: Record<string, unknown>;
      }[];
      const key = rules.find((rule) => rule.ServerSideEncryptionByDefault?.SSEAlgorithm === 'aws:kms')
        ?.ServerSideEncryptionByDefault?.KMSMasterKeyID;
      if (key !== undefined) buckets.set(this.resolver.physicalName(logicalId), this.keyArn(key));
    }
    for (const [logicalId, resource] of this.entries('AWS::DynamoDB::Table')) {
      const key = (resource.Properties?.SSESpecification as { KMSMasterKeyId?: unknown } | undefined)
        ?.KMSMasterKeyId;
      if (key !== undefined) tables.set(this.resolver.physicalName(logicalId), this.keyArn(key));
    }
    for (const [logicalId, resource] of this.entries('AWS::SNS::Topic')) {
      const key = resource.Properties?.KmsMasterKeyId;
      if (key !== undefined) topics.set(this.resolver.arn(logicalId), this.keyArn(key));
    }
    return { buckets, tables, topics };
  }

  /** A key given as ARN, id or `Ref`, as its ARN. */
  private keyArn(key: unknown): string {
    const resolved = this.resolver.resolveString(key);
    if (resolved.startsWith('arn:')) return resolved;
    const { partition, region, account } = this.resolver.env;
    return `arn:${partition}:kms:${region}:${account}:key/${resolved}`;
  }

  private entries(type: string): [string, Resource][] {
    return Object.entries(this.resources).filter(([, resource]) => resource.Type === type);
  }
}
