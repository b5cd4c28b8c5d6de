import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordOf } from '../core/contracts/index.js';
import { CONFIG_FILE_CONTEXT_KEY, describeConfigProblem, loadOptimizerConfig } from './optimizer-config.js';

/**
 * The config file check that `npm run synth` and `npm run deploy` run before the CDK CLI. The app
 * checks the same file (infra/bin/app.ts exits 2 naming every bad field), but the CLI reports any
 * failed app as its own exit code 1 ("Subprocess exited with error 1" or 2 alike), so a script
 * could not tell a bad config from a broken build. Run first, the check exits 2 itself, with the
 * list, and nothing is synthesized or bundled.
 */

/**
 * The `configFile` context value the CDK CLI would hand the app: the last `-c`/`--context
 * configFile=…` of the command line (the CLI's own arguments win over cdk.json's context), else
 * cdk.json's `context.configFile`; `undefined` when neither names one.
 */
export function configFileOfCdkArgs(args: readonly string[], cdkJsonContext: unknown): unknown {
  let fromArgs: string | undefined;
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    let pair: string | undefined;
    if (arg === '-c' || arg === '--context') pair = args[index + 1];
    else if (arg.startsWith('--context=')) pair = arg.slice('--context='.length);
    else if (arg.startsWith('-c=')) pair = arg.slice('-c='.length);
    const prefix = `${CONFIG_FILE_CONTEXT_KEY}=`;
    if (pair?.startsWith(prefix) === true) fromArgs = pair.slice(prefix.length);
  }
  if (fromArgs !== undefined) return fromArgs;
  return recordOf(cdkJsonContext)?.[CONFIG_FILE_CONTEXT_KEY];
}

/** cdk.json's `context` in `folder`, or undefined without one. */
export function cdkJsonContextIn(folder: string): unknown {
  const file = join(folder, 'cdk.json');
  if (!existsSync(file)) return undefined;
  const document = JSON.parse(readFileSync(file, 'utf8')) as { readonly context?: unknown };
  return document.context;
}

/**
 * The config file's problem, as the app would print it, or `undefined` when the file (or its
 * absence) is fine. Any other error is thrown: its stack trace is worth reading.
 */
export function configProblemOfCdkArgs(args: readonly string[], cwd: string): string | undefined {
  try {
    loadOptimizerConfig(configFileOfCdkArgs(args, cdkJsonContextIn(cwd)), cwd);
    return undefined;
  } catch (error) {
    const problem = describeConfigProblem(error);
    if (problem === undefined) throw error;
    return problem;
  }
}
