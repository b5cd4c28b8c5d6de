import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import type {
  IPolicyValidationContext,
  IPolicyValidationPlugin,
  PolicyValidationPluginReport,
} from 'aws-cdk-lib';
import { GUARD_PLUGIN_NAME } from './acknowledge.js';
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

  constructor(disabled: Readonly<Record<string, string>> = DISABLED_GUARD_RULES) {
    for (const [rule, reason] of Object.entries(disabled)) {
      if (reason.trim().length < MIN_REASON_LENGTH) {
        throw new Error(
          `CloudFormation Guard rule ${rule} is disabled with the reason "${reason}": expected a sentence of ` +
            `at least ${MIN_REASON_LENGTH} characters saying why the rule does not apply to this project`,
        );
      }
    }
    this.guard = new CfnGuardValidator({
      disabledRules: Object.keys(disabled),
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

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const report = this.guard.validate(context);
    return {
      ...report,
      violations: report.violations.map((violation) => ({
        ...violation,
        severity: violation.severity ?? 'error',
      })),
    };
  }
}
