import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type {
  IPolicyValidationContext,
  IPolicyValidationPlugin,
  PolicyValidationPluginReport,
} from 'aws-cdk-lib';
import { GUARD_PLUGIN_NAME } from './acknowledge.js';
import { bundledControlTowerRules, rulesForTypes, templateResourceTypes } from './guard-rule-selection.js';
import { DISABLED_GUARD_RULES } from './guard-rules.js';

/** A reason must say why, as cdk-nag acknowledgments do. */
const MIN_REASON_LENGTH = 30;

/**
 * The cfn-guard process writes its JSON report of every rule over every template to stdout; the
 * stack's report grows with each resource, and Node's default 1 MiB child-process buffer would kill
 * cfn-guard with ENOBUFS.
 */
const GUARD_OUTPUT_BUFFER_BYTES = 64 * 1024 * 1024;

/**
 * CloudFormation Guard as a policy-validation plugin (see guard-rules.ts), whose every finding is an
 * error.
 *
 * The validator reports its findings without a severity. Once any finding of a plugin is
 * acknowledged, CDK recomputes that plugin's result as "no violation left of severity error or
 * fatal" (aws-cdk-lib core, synthesis-validation `collectSuppressions`), so unacknowledged findings
 * without a severity would no longer fail synth. Marking them `error` keeps synth failing on them.
 */
export class GuardValidator implements IPolicyValidationPlugin {
  readonly name: string;
  readonly version: string | undefined;
  readonly ruleIds: string[] | undefined;
  private readonly guard: CfnGuardValidator;
  private readonly disabledRules: string[];

  constructor(disabled: Readonly<Record<string, string>> = DISABLED_GUARD_RULES) {
    for (const [rule, reason] of Object.entries(disabled)) {
      if (reason.trim().length < MIN_REASON_LENGTH) {
        throw new Error(
          `CloudFormation Guard rule ${rule} is disabled with the reason "${reason}": expected a sentence of ` +
            `at least ${MIN_REASON_LENGTH} characters saying why the rule does not apply to this project`,
        );
      }
    }
    this.disabledRules = Object.keys(disabled);
    this.guard = new CfnGuardValidator({
      disabledRules: this.disabledRules,
      maxBuffer: GUARD_OUTPUT_BUFFER_BYTES,
    });
    if (this.guard.name !== GUARD_PLUGIN_NAME) {
      // Acknowledgment ids are `<plugin name>::<rule>`: a renamed plugin would silently match none.
      throw new Error(
        `CloudFormation Guard validator: got the plugin name "${this.guard.name}", expected "${GUARD_PLUGIN_NAME}" ` +
          '(update GUARD_PLUGIN_NAME in infra/nag/acknowledge.ts with the new name)',
      );
    }
    this.name = this.guard.name;
    this.version = this.guard.version;
    this.ruleIds = this.guard.ruleIds;
  }

  /**
   * Runs the bundled rules that can select a resource of the templates (guard-rule-selection.ts):
   * the same findings as all of them, in a third of the time over this stack.
   */
  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const rules = rulesForTypes(bundledControlTowerRules(), templateResourceTypes(context.templatePaths));
    // cfn-guard refuses to run without a rule; with none that applies, there is nothing to find.
    if (rules.length === 0) return { success: true, violations: [] };
    const guard = new CfnGuardValidator({
      controlTowerRulesEnabled: false,
      rules: rules.map((rule) => rule.path),
      disabledRules: this.disabledRules,
      maxBuffer: GUARD_OUTPUT_BUFFER_BYTES,
    });
    const report = guard.validate(context);
    return {
      ...report,
      violations: report.violations.map((violation) => ({
        ...violation,
        severity: violation.severity ?? 'error',
      })),
    };
  }
}
