/**
 * `npm start` (= `tsx local/cli.ts --input examples/local.json`): the local optimization run.
 * See `local/cli/args.ts` for the options, or run it with `--help`.
 */
import { runCli } from './cli/main.js';
import { runAsProcess } from './cli/workflow-cli.js';

await runAsProcess(runCli);
