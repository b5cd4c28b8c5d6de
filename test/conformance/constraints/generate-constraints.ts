/**
 * Writes `service-constraints.generated.ts`: the constraints of every structure member reachable
 * from the operations the adapters call, read from the official Smithy models.
 *
 *   git clone --depth 1 https://github.com/aws/api-models-aws /tmp/api-models-aws
 *   npx tsx test/conformance/constraints/generate-constraints.ts /tmp/api-models-aws
 *
 * Enums come from the SDK's exported enum objects when the client exports one of that name (what
 * the installed SDK sends is what it knows), otherwise from the model. Run it again after adding a
 * command to an adapter; `constraint-table.test.ts` fails until then.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import type { ValueConstraint } from './constraint-types.js';
import { projectOperations, REPO_ROOT } from './project-operations.js';
import { SERVICES, type ServiceKey } from './services.js';

interface SmithyTarget {
  readonly target: string;
  readonly traits?: Readonly<Record<string, unknown>>;
}

interface SmithyShape {
  readonly type: string;
  readonly traits?: Readonly<Record<string, unknown>>;
  readonly members?: Readonly<Record<string, SmithyTarget>>;
  readonly member?: SmithyTarget;
  readonly key?: SmithyTarget;
  readonly value?: SmithyTarget;
  readonly input?: { readonly target: string };
}

type Shapes = Readonly<Record<string, SmithyShape>>;

/** A constraint as generated code: an enum may be an expression naming the SDK's export. */
interface Generated {
  pattern?: string;
  length?: ValueConstraint['length'];
  range?: ValueConstraint['range'];
  enum?: readonly string[] | { readonly sdkExport: string };
  member?: Generated;
  key?: Generated;
  value?: Generated;
}

const OUTPUT = join(REPO_ROOT, 'test', 'conformance', 'constraints', 'service-constraints.generated.ts');

async function main(): Promise<void> {
  const modelsDir = process.argv[2];
  if (modelsDir === undefined) {
    throw new Error(
      'generate-constraints: got no models folder, expected the path of a checkout of ' +
        'https://github.com/aws/api-models-aws as the first argument',
    );
  }
  const operations = projectOperations();
  const entries: string[] = [];
  const required: string[] = [];
  const imports = new Set<ServiceKey>();
  const covered: string[] = [];

  for (const service of Object.keys(SERVICES) as ServiceKey[]) {
    const info = SERVICES[service];
    const wanted = operations.filter((op) => op.service === service).map((op) => op.operation);
    if (wanted.length === 0) continue;
    const model = JSON.parse(readFileSync(modelFile(modelsDir, info.modelPath), 'utf8')) as {
      shapes: Shapes;
    };
    const sdk = (await import(info.sdkPackage)) as Record<string, unknown>;
    const structures = new Map<string, string>(); // structure id → page
    const visit = (shapeId: string, page: string): void => {
      const shape = model.shapes[shapeId];
      if (shape === undefined || structures.has(shapeId)) return;
      if (shape.type === 'structure' || shape.type === 'union') {
        structures.set(shapeId, page);
        for (const member of Object.values(shape.members ?? {})) visit(member.target, pageOf(member.target));
      } else if (shape.type === 'list' && shape.member !== undefined) {
        visit(shape.member.target, pageOf(shape.member.target));
      } else if (shape.type === 'map') {
        if (shape.key !== undefined) visit(shape.key.target, page);
        if (shape.value !== undefined) visit(shape.value.target, pageOf(shape.value.target));
      }
    };
    const pageOf = (shapeId: string): string => info.page(localName(shapeId));
    for (const operation of wanted) {
      const operationShape = model.shapes[`${info.namespace}#${operation}`];
      const input = operationShape?.input?.target;
      if (input === undefined) throw new Error(`${info.modelPath}: no operation ${operation}, or no input`);
      visit(input, info.page(operation));
      covered.push(`${service}:${operation}`);
    }
    for (const [structureId, page] of [...structures.entries()].sort(([a], [b]) => a.localeCompare(b))) {
      const shape = model.shapes[structureId];
      const members = Object.entries(shape?.members ?? {});
      const requiredMembers = members
        .filter(([, member]) => member.traits?.['smithy.api#required'] !== undefined)
        .map(([name]) => name);
      if (shape?.type === 'structure')
        required.push(`${JSON.stringify(structureId)}: ${JSON.stringify(requiredMembers)}`);
      for (const [memberName, member] of members) {
        const constraint = constraintOf(model.shapes, member, sdk);
        if (constraint === undefined) continue;
        if (hasSdkEnum(constraint)) imports.add(service);
        entries.push(
          `${JSON.stringify(`${structureId}$${memberName}`)}: ${render(service, constraint, page)}`,
        );
      }
    }
  }

  // Namespace imports: two services export enums of the same name (ComparisonOperator).
  const importLines = [...imports]
    .sort()
    .map((service) => `import * as ${service} from '${SERVICES[service].sdkPackage}';`);
  const text = `// Generated by generate-constraints.ts from aws/api-models-aws: do not edit; run it again.
${importLines.join('\n')}
import type { ConstraintTable } from './constraint-types.js';

/** The operations whose inputs the table covers (service key: operation). */
export const COVERED_OPERATIONS: readonly string[] = ${JSON.stringify(covered)};

/** Required members of each structure, as the model declares them (the SDK's schemas must agree). */
export const MODEL_REQUIRED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
${required.join(',\n')}
};

export const SERVICE_CONSTRAINTS: ConstraintTable = {
${entries.join(',\n')}
};
`;
  const options = (await prettier.resolveConfig(OUTPUT)) ?? {};
  writeFileSync(OUTPUT, await prettier.format(text, { ...options, parser: 'typescript' }));
  console.log(`Wrote ${entries.length} member constraints for ${covered.length} operations to ${OUTPUT}`);
}

/**
 * Models too large for every stored snapshot of aws/api-models-aws, kept as excerpts of the shapes
 * the adapters' operations reach (test/conformance/constraints/models/): read when the folder lacks
 * the full model.
 */
const MODEL_EXCERPTS: Readonly<Record<string, string>> = {
  'ec2/service/2016-11-15/ec2-2016-11-15.json': 'ec2-describe-instance-types.json',
};

function modelFile(modelsDir: string, modelPath: string): string {
  const full = join(modelsDir, modelPath);
  const excerpt = MODEL_EXCERPTS[modelPath];
  if (existsSync(full) || excerpt === undefined) return full;
  console.log(`${modelPath} is not in ${modelsDir}: reading its excerpt ${excerpt}`);
  return join(REPO_ROOT, 'test', 'conformance', 'constraints', 'models', excerpt);
}

function localName(shapeId: string): string {
  return shapeId.slice(shapeId.indexOf('#') + 1);
}

/** Member traits override the target's (Smithy: member traits are applied over the target's). */
function constraintOf(
  shapes: Shapes,
  reference: SmithyTarget,
  sdk: Record<string, unknown>,
): Generated | undefined {
  const target = shapes[reference.target];
  const traits = { ...target?.traits, ...reference.traits };
  const constraint: Generated = {};
  const pattern = traits['smithy.api#pattern'];
  if (typeof pattern === 'string') constraint.pattern = pattern;
  const length = bounds(traits['smithy.api#length']);
  if (length !== undefined) constraint.length = length;
  const range = bounds(traits['smithy.api#range']);
  if (range !== undefined) constraint.range = range;
  if (target?.type === 'enum') {
    // The SDK prefixes an export whose name a built-in type takes (`_InstanceType`).
    const name = [localName(reference.target), `_${localName(reference.target)}`].find(
      (candidate) => typeof sdk[candidate] === 'object' && sdk[candidate] !== null,
    );
    constraint.enum =
      name !== undefined
        ? { sdkExport: name }
        : Object.values(target.members ?? {}).map((member) =>
            String(member.traits?.['smithy.api#enumValue']),
          );
  }
  if (target?.type === 'list' && target.member !== undefined) {
    const member = constraintOf(shapes, target.member, sdk);
    if (member !== undefined) constraint.member = member;
  }
  if (target?.type === 'map') {
    const key = target.key === undefined ? undefined : constraintOf(shapes, target.key, sdk);
    const value = target.value === undefined ? undefined : constraintOf(shapes, target.value, sdk);
    if (key !== undefined) constraint.key = key;
    if (value !== undefined) constraint.value = value;
  }
  return Object.keys(constraint).length === 0 ? undefined : constraint;
}

function bounds(trait: unknown): { min?: number; max?: number } | undefined {
  if (typeof trait !== 'object' || trait === null) return undefined;
  const { min, max } = trait as { min?: unknown; max?: unknown };
  const result: { min?: number; max?: number } = {};
  if (typeof min === 'number') result.min = min;
  if (typeof max === 'number') result.max = max;
  return Object.keys(result).length === 0 ? undefined : result;
}

function hasSdkEnum(constraint: Generated): boolean {
  if (constraint.enum !== undefined && 'sdkExport' in constraint.enum) return true;
  return [constraint.member, constraint.key, constraint.value].some(
    (nested) => nested !== undefined && hasSdkEnum(nested),
  );
}

function render(service: ServiceKey, constraint: Generated, source?: string): string {
  const parts: string[] = [];
  if (constraint.pattern !== undefined) parts.push(`pattern: ${JSON.stringify(constraint.pattern)}`);
  if (constraint.length !== undefined) parts.push(`length: ${JSON.stringify(constraint.length)}`);
  if (constraint.range !== undefined) parts.push(`range: ${JSON.stringify(constraint.range)}`);
  if (constraint.enum !== undefined) {
    parts.push(
      'sdkExport' in constraint.enum
        ? `enum: Object.values(${service}.${constraint.enum.sdkExport})`
        : `enum: ${JSON.stringify(constraint.enum)}`,
    );
  }
  if (constraint.member !== undefined) parts.push(`member: ${render(service, constraint.member)}`);
  if (constraint.key !== undefined) parts.push(`key: ${render(service, constraint.key)}`);
  if (constraint.value !== undefined) parts.push(`value: ${render(service, constraint.value)}`);
  if (source !== undefined) parts.push(`source: ${JSON.stringify(source)}`);
  return `{ ${parts.join(', ')} }`;
}

await main();
