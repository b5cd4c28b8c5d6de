import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Which of the bundled Control Tower rule files to run over a synthesized template.
 *
 * cfn-guard evaluates every rule file against the whole template, so its time grows with rules ×
 * resources: over this stack, 15.7 s for the 237 bundled files against 3.9 s for the 51 that name a
 * resource type the stack has, with the same findings. Each
 * Control Tower proactive control checks the resources of the types it names
 * (`Resources.*[ Type == 'AWS::…' ]`), so a rule file whose every type is absent from the template
 * has nothing to check there. A file that names no type at all is always run: nothing says what it
 * selects.
 */

const RESOURCE_TYPE = /AWS::[A-Za-z0-9]+::[A-Za-z0-9]+/g;

export interface GuardRuleFile {
  readonly path: string;
  /** The CloudFormation resource types the rule file names. */
  readonly resourceTypes: ReadonlySet<string>;
}

/** The resource types a rule file's text names. */
export function resourceTypesNamed(ruleText: string): ReadonlySet<string> {
  return new Set(ruleText.match(RESOURCE_TYPE) ?? []);
}

/** The rule files that can select a resource of the templates' types, in the order given. */
export function rulesForTypes(
  rules: readonly GuardRuleFile[],
  templateTypes: ReadonlySet<string>,
): GuardRuleFile[] {
  return rules.filter(
    (rule) =>
      rule.resourceTypes.size === 0 || [...rule.resourceTypes].some((type) => templateTypes.has(type)),
  );
}

/** Every resource type of the templates (CloudFormation JSON, as the synthesized assembly holds them). */
export function templateResourceTypes(templatePaths: readonly string[]): ReadonlySet<string> {
  const types = new Set<string>();
  for (const path of templatePaths) {
    const template = JSON.parse(readFileSync(path, 'utf8')) as {
      Resources?: Record<string, { Type?: unknown }>;
    };
    for (const resource of Object.values(template.Resources ?? {})) {
      if (typeof resource.Type === 'string') types.add(resource.Type);
    }
  }
  return types;
}

/** The rule files under a directory, with the types each names, sorted by path. */
export function guardRuleFilesUnder(directory: string): GuardRuleFile[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.guard'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
    .map((path) => ({ path, resourceTypes: resourceTypesNamed(readFileSync(path, 'utf8')) }));
}

/**
 * The directory of the Control Tower rules `@cdklabs/cdk-validator-cfnguard` bundles, where its
 * validator reads them by default (`rules/control-tower/cfn-guard` beside its `lib/`).
 */
export function bundledControlTowerRulesDirectory(): string {
  const entry = createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard');
  return join(dirname(entry), '..', 'rules', 'control-tower', 'cfn-guard');
}

let bundledRules: GuardRuleFile[] | undefined;

/** The bundled Control Tower rule files, read once per process. */
export function bundledControlTowerRules(): readonly GuardRuleFile[] {
  bundledRules ??= guardRuleFilesUnder(bundledControlTowerRulesDirectory());
  return bundledRules;
}
