import type { AslDefinition } from './asl.js';
import { assertAslDefinition } from './asl.js';
import type { ResourceReference, TemplateResource } from './cloudformation-tokens.js';
import { TokenResolver } from './cloudformation-tokens.js';
import { isRecord } from '../../core/contracts/index.js';

export type { ResourceReference } from './cloudformation-tokens.js';

/** A state machine of a synthesized template, its tokens replaced by local stand-ins. */
export interface ExtractedStateMachine {
  readonly logicalId: string;
  /** `StateMachineName` if set, else the construct path (`Stack/Optimization/Resource` → `Optimization`), else the logical ID. */
  readonly name: string;
  readonly definition: AslDefinition;
  /** Every resource a token of the definition pointed at, keyed by the standIn that replaced it. */
  readonly resources: Readonly<Record<string, ResourceReference>>;
}

const STATE_MACHINE_TYPE = 'AWS::StepFunctions::StateMachine';

/** The state machines of a CloudFormation template (as `cdk synth` or `Template.toJSON()` produce it). */
export function extractStateMachines(template: Readonly<Record<string, unknown>>): ExtractedStateMachine[] {
  const resources = readResources(template);
  return [...resources.values()]
    .filter((resource) => resource.type === STATE_MACHINE_TYPE)
    .map((resource) => extractStateMachine(resource, resources));
}

function extractStateMachine(
  stateMachine: TemplateResource,
  resources: ReadonlyMap<string, TemplateResource>,
): ExtractedStateMachine {
  const where = `State machine ${stateMachine.logicalId}`;
  const { DefinitionString: definitionString, DefinitionSubstitutions: substitutions } =
    stateMachine.properties;
  if (definitionString === undefined) {
    throw new Error(
      `${where}: has no DefinitionString (got properties ${Object.keys(stateMachine.properties).join(', ')}); the local runner reads DefinitionString, which CDK's DefinitionBody.fromChainable/fromString produce`,
    );
  }
  const resolver = new TokenResolver(resources, where);
  const text = substitute(resolver.resolve(definitionString), substitutions, resolver, where);
  let definition: unknown;
  try {
    definition = JSON.parse(text);
  } catch (error) {
    throw new Error(
      `${where}: the resolved DefinitionString is not JSON (${error instanceof Error ? error.message : String(error)})`,
      { cause: error },
    );
  }
  assertAslDefinition(definition, where);
  return {
    logicalId: stateMachine.logicalId,
    name: stateMachineName(stateMachine),
    definition,
    resources: resolver.references,
  };
}

/** `DefinitionSubstitutions`: CloudFormation replaces each `${key}` of the definition with the value. */
function substitute(text: string, substitutions: unknown, resolver: TokenResolver, where: string): string {
  if (substitutions === undefined) return text;
  if (typeof substitutions !== 'object' || substitutions === null) {
    throw new Error(
      `${where}: DefinitionSubstitutions must be an object, got ${JSON.stringify(substitutions)}`,
    );
  }
  return Object.entries(substitutions).reduce(
    (result, [key, value]) => result.replaceAll(`\${${key}}`, resolver.resolve(value)),
    text,
  );
}

function stateMachineName(resource: TemplateResource): string {
  const explicit = resource.properties.StateMachineName;
  if (typeof explicit === 'string') return explicit;
  const path = resource.metadata['aws:cdk:path'];
  if (typeof path === 'string') {
    // Drop the stack (first segment) and CDK's trailing `Resource`; names allow [A-Za-z0-9_-]
    // (https://docs.aws.amazon.com/step-functions/latest/apireference/API_CreateStateMachine.html).
    const segments = path.split('/').slice(1);
    if (segments.at(-1) === 'Resource') segments.pop();
    const name = segments.join('-').replace(/[^\w-]/g, '-');
    if (name.length > 0) return name.slice(0, 80);
  }
  return resource.logicalId;
}

function readResources(template: Readonly<Record<string, unknown>>): Map<string, TemplateResource> {
  const section = template.Resources;
  if (typeof section !== 'object' || section === null) {
    throw new Error(
      `Not a CloudFormation template: expected a Resources object, got ${JSON.stringify(section)}`,
    );
  }
  const resources = new Map<string, TemplateResource>();
  for (const [logicalId, value] of Object.entries(section)) {
    if (!isRecord(value) || typeof value.Type !== 'string') {
      throw new Error(`Resource ${logicalId}: expected an object with a Type string`);
    }
    resources.set(logicalId, {
      logicalId,
      type: value.Type,
      properties: isRecord(value.Properties) ? value.Properties : {},
      metadata: isRecord(value.Metadata) ? value.Metadata : {},
    });
  }
  return resources;
}
