/**
 * The synthesized template's values as they would be deployed in the conformance layer's fake
 * account: CloudFormation intrinsics resolved (Ref, Fn::GetAtt, Fn::Join, Fn::Select, Fn::Split,
 * Fn::Sub, the pseudo parameters), each logical id given a physical name, and the literal account
 * and Region the template was synthesized for rewritten to the account's.
 *
 * Return values follow the CloudFormation resource reference (each resource type's "Return
 * values": https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-template-resource-type-ref.html).
 */

export interface AccountEnv {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
}

type Resources = Readonly<
  Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
>;

/** A physical value given to a logical id: what `Ref` returns, or what `Fn::GetAtt …Arn` does. */
export type Binding = { readonly ref: string } | { readonly arn: string };

export interface TemplateResolverOptions {
  readonly template: Readonly<Record<string, unknown>>;
  /** The fake account the requests are made in. */
  readonly env: AccountEnv;
  /** The account and Region literals the template was synthesized with. */
  readonly synthesizedFor: { readonly account: string; readonly region: string };
  /** Physical values of logical ids, e.g. the artifacts bucket the examples name. */
  readonly bindings?: ReadonlyMap<string, Binding>;
}

/** The property that names a resource of each type, when the template sets it. */
const NAME_PROPERTIES: Readonly<Record<string, string>> = {
  'AWS::S3::Bucket': 'BucketName',
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::StepFunctions::StateMachine': 'StateMachineName',
};

export class TemplateResolver {
  private readonly resources: Resources;
  private readonly bindings: ReadonlyMap<string, Binding>;

  constructor(private readonly options: TemplateResolverOptions) {
    this.resources = (options.template.Resources ?? {}) as Resources;
    this.bindings = options.bindings ?? new Map();
  }

  get env(): AccountEnv {
    return this.options.env;
  }

  /** The resource of a logical id; throws naming the id when the template has none. */
  resource(logicalId: string): { readonly Type: string; readonly Properties?: Record<string, unknown> } {
    const resource = this.resources[logicalId];
    if (resource === undefined) {
      throw new Error(`The template has no resource ${logicalId}; expected a logical id of its Resources`);
    }
    return resource;
  }

  /** `value` with every intrinsic resolved and every string rewritten to the fake account. */
  resolve(value: unknown): unknown {
    if (typeof value === 'string') return this.rehost(value);
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    const [first] = entries;
    if (entries.length === 1 && first !== undefined && isIntrinsic(first[0])) {
      return this.intrinsic(first[0], first[1]);
    }
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]));
  }

  /** `value` resolved, expected to be a string; throws naming what it got. */
  resolveString(value: unknown): string {
    const resolved = this.resolve(value);
    if (typeof resolved !== 'string') {
      throw new Error(
        `Expected a string after resolving ${JSON.stringify(value)}; got ${JSON.stringify(resolved)}`,
      );
    }
    return resolved;
  }

  /** What `Ref` returns for a logical id or a pseudo parameter. */
  ref(name: string): string {
    const { partition, region, account } = this.options.env;
    const pseudo: Readonly<Record<string, string>> = {
      'AWS::Partition': partition,
      'AWS::Region': region,
      'AWS::AccountId': account,
      'AWS::URLSuffix': 'amazonaws.com',
    };
    const value = pseudo[name];
    if (value !== undefined) return value;
    const bound = this.bindings.get(name);
    if (bound !== undefined && 'ref' in bound) return bound.ref;
    const { Type: type } = this.resource(name);
    switch (type) {
      case 'AWS::SNS::Topic':
      case 'AWS::StepFunctions::StateMachine':
        return this.arn(name);
      case 'AWS::KMS::Key':
        return this.physicalName(name);
      case 'AWS::SQS::Queue':
        return `https://sqs.${region}.amazonaws.com/${account}/${this.physicalName(name)}`;
      default:
        return this.physicalName(name);
    }
  }

  /** What `Fn::GetAtt` returns; only the attributes IAM policies use are known. */
  getAtt(logicalId: string, attribute: string): string {
    if (attribute === 'Arn') return this.arn(logicalId);
    const type = this.resource(logicalId).Type;
    if (
      (type === 'AWS::SNS::Topic' && attribute === 'TopicName') ||
      (type === 'AWS::SQS::Queue' && attribute === 'QueueName') ||
      (type === 'AWS::StepFunctions::StateMachine' && attribute === 'Name')
    ) {
      return this.physicalName(logicalId);
    }
    if (type === 'AWS::SNS::Topic' && attribute === 'TopicArn') return this.arn(logicalId);
    throw new Error(`Fn::GetAtt ${logicalId}.${attribute} (${type}) is not known to the resolver; add it`);
  }

  /** The ARN of a resource: bound, or built from its type and physical name. */
  arn(logicalId: string): string {
    const bound = this.bindings.get(logicalId);
    if (bound !== undefined && 'arn' in bound) return bound.arn;
    const { partition, region, account } = this.options.env;
    const name = this.physicalName(logicalId);
    const type = this.resource(logicalId).Type;
    switch (type) {
      case 'AWS::S3::Bucket':
        return `arn:${partition}:s3:::${name}`;
      case 'AWS::DynamoDB::Table':
        return `arn:${partition}:dynamodb:${region}:${account}:table/${name}`;
      case 'AWS::SNS::Topic':
        return `arn:${partition}:sns:${region}:${account}:${name}`;
      case 'AWS::SQS::Queue':
        return `arn:${partition}:sqs:${region}:${account}:${name}`;
      case 'AWS::IAM::Role':
        return `arn:${partition}:iam::${account}:role/${name}`;
      case 'AWS::KMS::Key':
        return `arn:${partition}:kms:${region}:${account}:key/${name}`;
      case 'AWS::Lambda::Function':
        return `arn:${partition}:lambda:${region}:${account}:function:${name}`;
      case 'AWS::Logs::LogGroup':
        return `arn:${partition}:logs:${region}:${account}:log-group:${name}:*`;
      case 'AWS::StepFunctions::StateMachine':
        return `arn:${partition}:states:${region}:${account}:stateMachine:${name}`;
      default:
        throw new Error(`The resolver knows no ARN of ${type} (${logicalId}); add it`);
    }
  }

  /**
   * A resource's name: bound (the name in a bound ARN or a bound Ref), set in its properties, or,
   * as CloudFormation generates one, derived from its logical id.
   */
  physicalName(logicalId: string): string {
    const bound = this.bindings.get(logicalId);
    if (bound !== undefined) return 'ref' in bound ? nameInArn(bound.ref) : nameInArn(bound.arn);
    const resource = this.resource(logicalId);
    const property = NAME_PROPERTIES[resource.Type];
    const named = property === undefined ? undefined : resource.Properties?.[property];
    return named === undefined ? logicalId : this.resolveString(named);
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument)
          ? (argument as string[])
          : String(argument).split('.');
        return this.getAtt(String(logicalId), String(attribute));
      }
      case 'Fn::Join': {
        const [separator, items] = argument as [string, unknown[]];
        const resolved = this.resolve(items);
        if (!Array.isArray(resolved)) throw new Error(`Fn::Join of ${JSON.stringify(items)}: not a list`);
        return resolved.map(String).join(separator);
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, unknown];
        return this.resolveString(text).split(separator);
      }
      case 'Fn::Select': {
        const [index, items] = argument as [unknown, unknown];
        const list = this.resolve(items);
        const item = Array.isArray(list) ? (list as unknown[])[Number(this.resolve(index))] : undefined;
        if (item === undefined)
          throw new Error(`Fn::Select ${String(index)} of ${JSON.stringify(list)}: out of range`);
        return item;
      }
      case 'Fn::Sub': {
        const [text, variables] = Array.isArray(argument)
          ? (argument as [string, Record<string, unknown>])
          : [String(argument), {}];
        return this.rehost(
          text.replace(/\$\{([^}!][^}]*)\}/g, (_whole, variable: string) => {
            if (variable in variables) return this.resolveString(variables[variable]);
            const [logicalId, attribute] = variable.split('.');
            return attribute === undefined
              ? this.ref(String(logicalId))
              : this.getAtt(String(logicalId), attribute);
          }),
        );
      }
      default:
        throw new Error(`The intrinsic ${name} is not known to the resolver; add it`);
    }
  }

  /** The synthesized account and Region literals, replaced by the fake account's. */
  private rehost(text: string): string {
    const { synthesizedFor, env } = this.options;
    return text
      .replace(new RegExp(`\\b${escapeRegExp(synthesizedFor.account)}\\b`, 'g'), env.account)
      .replace(new RegExp(`\\b${escapeRegExp(synthesizedFor.region)}\\b`, 'g'), env.region);
  }
}

function isIntrinsic(key: string): boolean {
  return key === 'Ref' || key.startsWith('Fn::');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The resource name at the end of an ARN (`…:role/name` → `name`, `…:topic-name` → itself). */
function nameInArn(value: string): string {
  if (!value.startsWith('arn:')) return value;
  const resource = value.split(':').slice(5).join(':');
  const slash = resource.lastIndexOf('/');
  const colon = resource.lastIndexOf(':');
  return resource.slice(Math.max(slash, colon) + 1);
}
