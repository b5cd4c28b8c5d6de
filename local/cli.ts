/**
 * `npm start` (= `tsx local/cli.ts --input examples/local.json`): the local optimization run.
 * See `local/cli/args.ts` for the options, or run it with `--help`.
 */
import { runCli, runAsProcess } from './cli/index.js';

await runAsProcess(runCli);
