import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeError, EXIT_CODES, isValidRunId } from '../../core/contracts/index.js';
import {
  compareRuns,
  DEFAULT_NOISE_TOLERANCE_PERCENT,
  exitCodeOfComparison,
  InvalidReportError,
  parseReportForComparison,
  parseTolerancePercent,
  TOLERANCE_EXPECTED,
  renderComparisonMarkdown,
  renderComparisonText,
} from '../../core/report/index.js';
import type { Report } from '../../core/report/index.js';
import { displayPath } from './shared.js';

export const COMPARE_USAGE = `Usage: npm run -s compare -- <base run> <new run> [--json | --markdown] [--runs DIR] [--tolerance PERCENT]

Compares two runs' report.json: for each candidate in both, sustainable TPS, p95 at that load and
cost per 1M in each run, the change, and whether it exceeds the noise the runs measured (more than
their repeats' spread, pooled, explains at 95 %; reports without that figure by their min–max
ranges; when neither run has repeats, a change beyond ±${DEFAULT_NOISE_TOLERANCE_PERCENT} %).
The verdict follows the candidate the base run recommended.

Arguments:
  <base run> <new run>  a run id (its report is DIR/<run id>/report.json), a run's folder, or the
                        path of a report.json (e.g. one saved by \`npm run -s runs -- report <run id>\`)

Options:
      --runs DIR           folder of the runs. Default: runs
      --json               print the comparison as JSON on stdout (and nothing else there)
      --markdown           print it as Markdown (a table to paste in a pull request or an issue)
      --tolerance PERCENT  the noise allowed for figures measured once in both runs. Default: ${DEFAULT_NOISE_TOLERANCE_PERCENT}
  -h, --help               print this help

Exit codes: 0 unchanged, improved or not comparable (the base's recommended candidate is not in
the new run), 6 regressed (that candidate's TPS went down, or its p95 or cost per 1M up, beyond
noise; or it no longer meets the SLA; or the new run recommends nothing), 2 bad command line or a
report that cannot be read.`;

export interface CompareCliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly cwd?: string;
}

export class CompareUsageError extends Error {
  override readonly name = 'CompareUsageError';
}

export interface CompareArguments {
  readonly help: boolean;
  readonly base: string;
  readonly next: string;
  readonly runsDir: string;
  readonly format: 'text' | 'json' | 'markdown';
  readonly tolerancePercent: number;
}

export function parseCompareArguments(argv: readonly string[]): CompareArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        runs: { type: 'string', default: 'runs' },
        json: { type: 'boolean', default: false },
        markdown: { type: 'boolean', default: false },
        tolerance: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new CompareUsageError(parseArgsProblem(error));
  }
  const { values, positionals } = parsed;
  const help = values.help;
  const [base, next] = positionals;
  if (!help && (positionals.length !== 2 || base === undefined || next === undefined)) {
    throw new CompareUsageError(
      `got ${positionals.length === 0 ? 'no runs' : `${positionals.length} argument(s): ${positionals.join(' ')}`}, ` +
        'expected two: the base run and the new run (run ids or report.json paths)',
    );
  }
  if (values.json && values.markdown) {
    throw new CompareUsageError(
      'got --json and --markdown, expected one of them (or neither, for the terminal table)',
    );
  }
  return {
    help,
    base: base ?? '',
    next: next ?? '',
    runsDir: values.runs,
    format: values.json ? 'json' : values.markdown ? 'markdown' : 'text',
    tolerancePercent: toleranceOf(values.tolerance),
  };
}

const COMPARE_OPTIONS = '--runs, --json, --markdown, --tolerance, -h/--help';

/**
 * What node's parseArgs refused, for a person: an unknown option named with the ones accepted,
 * else node's own sentence, without the TypeError name it throws it as.
 */
function parseArgsProblem(error: unknown): string {
  // Duck-typed: node's errors come from another realm under jest's vm, where instanceof fails.
  const message =
    typeof (error as { message?: unknown }).message === 'string' ? (error as Error).message : String(error);
  const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if ((error as { code?: unknown }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown !== undefined) {
    return `got the option ${unknown}, expected one of ${COMPARE_OPTIONS}`;
  }
  return message;
}

function toleranceOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_NOISE_TOLERANCE_PERCENT;
  const percent = parseTolerancePercent(text);
  if (percent === undefined) {
    throw new CompareUsageError(`--tolerance: got "${text}", expected ${TOLERANCE_EXPECTED}`);
  }
  return percent;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isFile(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
}

/**
 * Where a run's report is: DIR/<run id>/report.json for a run id, else the path itself (a folder's
 * report.json for a folder). A run id is looked up first: `npm start` names its folders by run id.
 */
export async function reportPathOf(argument: string, runsDir: string, cwd: string): Promise<string> {
  const tried: string[] = [];
  if (isValidRunId(argument)) {
    const byRunId = resolve(cwd, runsDir, argument, 'report.json');
    if (await isFile(byRunId)) return byRunId;
    tried.push(displayPath(cwd, byRunId));
  }
  const path = resolve(cwd, argument);
  if (await isDirectory(path)) {
    const inFolder = join(path, 'report.json');
    if (await isFile(inFolder)) return inFolder;
    tried.push(displayPath(cwd, inFolder));
  } else if (await isFile(path)) {
    return path;
  } else {
    tried.push(displayPath(cwd, path));
  }
  throw new CompareUsageError(
    `"${argument}": no report found (looked for ${tried.join(' and ')}), expected a run id under ${runsDir}/ ` +
      "or the path of a report.json; download a deployed run's with `npm run -s runs -- report <run id>`",
  );
}

async function readReport(path: string, shownAs: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CompareUsageError(`Cannot read ${shownAs}: ${describeError(error)}; expected a report.json`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new CompareUsageError(`${shownAs} is not JSON (${describeError(error)}), expected a report.json`);
  }
  return parseReportForComparison(document, shownAs);
}

/** `npm run compare -- <base> <new>`: prints the comparison; the exit code says whether it regressed. */
export async function runCompareCli(argv: readonly string[], io: CompareCliIo): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  try {
    const args = parseCompareArguments(argv);
    if (args.help) {
      io.stdout.write(`${COMPARE_USAGE}\n`);
      return EXIT_CODES.ok;
    }
    const basePath = await reportPathOf(args.base, args.runsDir, cwd);
    const nextPath = await reportPathOf(args.next, args.runsDir, cwd);
    const base = await readReport(basePath, displayPath(cwd, basePath));
    const next = await readReport(nextPath, displayPath(cwd, nextPath));
    const comparison = compareRuns(base, next, { tolerancePercent: args.tolerancePercent });
    const output =
      args.format === 'json'
        ? JSON.stringify(comparison, null, 2)
        : args.format === 'markdown'
          ? renderComparisonMarkdown(comparison)
          : renderComparisonText(comparison);
    io.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    return exitCodeOfComparison(comparison.verdict);
  } catch (error) {
    if (error instanceof CompareUsageError) {
      io.stderr.write(`${error.message}\n\n${COMPARE_USAGE}\n`);
      return EXIT_CODES.invalid;
    }
    if (error instanceof InvalidReportError) {
      io.stderr.write(`${error.message}\n`);
      return EXIT_CODES.invalid;
    }
    throw error;
  }
}
