import {
  LOCAL_ACCOUNT_ID,
  LOCAL_PARTITION,
  LOCAL_REGION,
  LOCAL_URL_SUFFIX,
  localStandIn,
} from './local-arns.js';

export interface TemplateResource {
  readonly logicalId: string;
  readonly type: string;
  readonly properties: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** A resource that a token of the definition points at, so the caller can map it to a local adapter. */
export interface ResourceReference extends TemplateResource {
  /** The local value that replaced the token in the definition. */
  readonly standIn: string;
  /** The `Fn::GetAtt` attribute, or `Ref` for a `Ref`. */
  readonly attribute: string;
}

const PSEUDO_PARAMETERS: Readonly<Record<string, string>> = {
  'AWS::Partition': LOCAL_PARTITION,
  'AWS::Region': LOCAL_REGION,
  'AWS::AccountId': LOCAL_ACCOUNT_ID,
  'AWS::URLSuffix': LOCAL_URL_SUFFIX,
};

/**
 * Resolves the intrinsic functions CDK emits inside a `DefinitionString` (`Fn::Join`, `Fn::GetAtt`,
 * `Ref`, `Fn::Sub`, pseudo parameters) to strings, recording every resource it resolves.
 */
export class TokenResolver {
  private readonly found = new Map<string, ResourceReference>();

  constructor(
    private readonly resources: ReadonlyMap<string, TemplateResource>,
    private readonly where: string,
  ) {}

  get references(): Readonly<Record<string, ResourceReference>> {
    return Object.fromEntries(this.found);
  }

  resolve(value: unknown): string {
    if (typeof value === 'string') return value;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw this.error(`a string or an intrinsic function`, value);
    }
    const entries = Object.entries(value);
    const [intrinsic, argument] = entries[0] ?? [];
    if (entries.length !== 1 || intrinsic === undefined) {
      throw this.error('an object with exactly one intrinsic function', value);
    }
    switch (intrinsic) {
      case 'Ref':
        return this.ref(argument);
      case 'Fn::GetAtt':
        return this.getAtt(argument);
      case 'Fn::Join':
        return this.join(argument);
      case 'Fn::Sub':
        return this.sub(argument);
      default:
        throw new Error(
          `${this.where}: cannot resolve intrinsic function ${intrinsic} locally (got ${JSON.stringify(value)}); supported: Ref, Fn::GetAtt, Fn::Join, Fn::Sub`,
        );
    }
  }

  private ref(name: unknown): string {
    if (typeof name !== 'string') throw this.error('Ref of a string', name);
    const pseudo = PSEUDO_PARAMETERS[name];
    if (pseudo !== undefined) return pseudo;
    if (name.startsWith('AWS::')) {
      throw new Error(
        `${this.where}: cannot resolve pseudo parameter Ref ${name} locally; supported: ${Object.keys(PSEUDO_PARAMETERS).join(', ')}`,
      );
    }
    return this.reference(name, 'Ref', 'Ref');
  }

  private getAtt(argument: unknown): string {
    const [logicalId, attribute, ...rest] =
      typeof argument === 'string' ? splitOnce(argument, '.') : (asArray(argument) ?? []);
    if (typeof logicalId !== 'string' || typeof attribute !== 'string' || rest.length > 0) {
      throw this.error('Fn::GetAtt of [LogicalId, Attribute] or "LogicalId.Attribute"', argument);
    }
    return this.reference(logicalId, attribute, 'Fn::GetAtt');
  }

  private join(argument: unknown): string {
    const [separator, values, ...rest] = asArray(argument) ?? [];
    const parts = asArray(values);
    if (typeof separator !== 'string' || !parts || rest.length > 0) {
      throw this.error('Fn::Join of [separator, [values]]', argument);
    }
    return parts.map((part) => this.resolve(part)).join(separator);
  }

  private sub(argument: unknown): string {
    const [template, variables = {}, ...rest] = asArray(argument) ?? [argument];
    if (
      typeof template !== 'string' ||
      typeof variables !== 'object' ||
      variables === null ||
      rest.length > 0
    ) {
      throw this.error('Fn::Sub of "template" or ["template", {variables}]', argument);
    }
    const values = new Map<string, unknown>(Object.entries(variables));
    return template.replace(/\$\{([^}]*)\}/g, (_match, name: string) => {
      // ${!Literal} is CloudFormation's escape for a literal ${Literal}.
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      if (values.has(name)) return this.resolve(values.get(name));
      const dot = name.indexOf('.');
      if (dot > 0 && !name.startsWith('AWS::')) {
        return this.reference(name.slice(0, dot), name.slice(dot + 1), 'Fn::Sub');
      }
      return this.ref(name);
    });
  }

  private reference(logicalId: string, attribute: string, intrinsic: string): string {
    const resource = this.resources.get(logicalId);
    if (!resource) {
      throw new Error(
        `${this.where}: ${intrinsic} references ${logicalId}, which is not a resource of the template (template parameters and imports cannot be resolved locally)`,
      );
    }
    const standIn = localStandIn(logicalId, resource.type, attribute);
    this.found.set(standIn, { ...resource, standIn, attribute });
    return standIn;
  }

  private error(expected: string, got: unknown): Error {
    return new Error(`${this.where}: expected ${expected}, got ${JSON.stringify(got)}`);
  }
}

function asArray(value: unknown): readonly unknown[] | undefined {
  return Array.isArray(value) ? (value as unknown[]) : undefined;
}

function splitOnce(value: string, separator: string): string[] {
  const index = value.indexOf(separator);
  return index < 0 ? [value] : [value.slice(0, index), value.slice(index + 1)];
}
