import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { join } from 'node:path';
import { REPO_ROOT } from './constructs/index.js';

export interface ConfiguredAppOptions {
  /** Run esbuild for every NodejsFunction (slow); by default bundling is skipped. @default false */
  readonly bundle?: boolean;
  /** @default - a fresh temporary directory */
  readonly outdir?: string;
  /**
   * Run aws-cdk-lib's built-in CloudFormation validation at synth (the `CloudFormationValidatePlugin`
   * every App registers unless `builtinCloudFormationValidation` is false; cdk.json's
   * `@aws-cdk/core:validateAgainstDefaultRules` makes its findings errors), as `cdk synth` does:
   * https://docs.aws.amazon.com/cdk/api/v2/docs/aws-cdk-lib.AppProps.html and
   * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/cloudformation-validate.html.
   * Its WebAssembly engine costs about 3 CPU-seconds to start in each process (each jest suite) and
   * 1.7 s per whole-stack synth, so the tests and the local synthesis turn it off where they only
   * read templates; the app's suites keep it (docs/decisions.md, 38). @default true
   */
  readonly builtinCloudFormationValidation?: boolean;
}

/**
 * An App with the same feature flags as `cdk synth` (read from cdk.json), so tests and local mode
 * work on the templates that are deployed. `aws:cdk:bundling-stacks: []` skips asset bundling: a
 * NodejsFunction then points at its sources without running esbuild.
 */
export function createConfiguredApp(options: ConfiguredAppOptions = {}): App {
  const cdkJson = JSON.parse(readFileSync(join(REPO_ROOT, 'cdk.json'), 'utf8')) as {
    context?: Record<string, unknown>;
  };
  const context: Record<string, unknown> = { ...cdkJson.context };
  if (options.bundle !== true) context['aws:cdk:bundling-stacks'] = [];
  return new App({
    context,
    ...(options.outdir === undefined ? {} : { outdir: options.outdir }),
    ...(options.builtinCloudFormationValidation === undefined
      ? {}
      : { builtinCloudFormationValidation: options.builtinCloudFormationValidation }),
  });
}
