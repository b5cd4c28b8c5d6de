import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';

export interface ConfiguredAppOptions {
  /** Run esbuild for every NodejsFunction (slow); by default bundling is skipped. @default false */
  readonly bundle?: boolean;
  /** @default - a fresh temporary directory */
  readonly outdir?: string;
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
  return new App({ context, ...(options.outdir === undefined ? {} : { outdir: options.outdir }) });
}
