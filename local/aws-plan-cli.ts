/**
 * `npm run plan:aws -- --input FILE`: an AWS run input planned offline (local/cli/aws-plan.ts).
 */
import { runAwsPlan } from './cli/index.js';

const outcome = await runAwsPlan(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
process.exitCode = outcome.exitCode;
