import { beforeAll, describe, expect, it } from '@jest/globals';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BlockState, checkContext, checkDocCommand } from './support/doc-command-checks.js';
import { commandsOfPage, docCommands, shellWords } from '../bench/support/doc-commands.js';

/**
 * Every command of the user docs' shell blocks holds: it is marked AWS only, or its npm script,
 * options, files and runs are what the project accepts (test/support/doc-command-checks.ts), and
 * its `--plan`/`--help` lines run. `npm run check:docs` runs the rest (`npm start`, `npm test`, …).
 */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const commands = docCommands(REPO_ROOT);
const context = checkContext(REPO_ROOT);

/** Where a command is and what it says, as a failure names it. */
const where = (command: { file: string; line: number; text: string }): string =>
  `${command.file}:${command.line} ${command.text}`;

describe('the commands of the user docs', () => {
  const problems = new Map<string, string[]>();

  beforeAll(async () => {
    // In order, one block's state at a time: a command may name a run an earlier one makes.
    const states = new Map<string, BlockState>();
    for (const command of commands) {
      const key = `${command.file}#${command.block}`;
      const state = states.get(key) ?? { runIds: new Set<string>() };
      states.set(key, state);
      problems.set(where(command), await checkDocCommand(command, context, state));
    }
  });

  it('finds commands in the README and the docs', () => {
    // Assert
    expect(commands.filter((command) => command.file === 'README.md').length).toBeGreaterThan(2);
    expect(commands.filter((command) => command.file.startsWith('docs/')).length).toBeGreaterThan(10);
    expect(commands.some((command) => command.awsOnly)).toBe(true);
  });

  it.each(commands.map((command) => [where(command), command.awsOnly ? 'AWS only' : 'runs here'] as const))(
    '%s (%s)',
    (location) => {
      // Assert
      expect({ command: location, problems: problems.get(location) }).toEqual({
        command: location,
        problems: [],
      });
    },
  );
});

describe('commandsOfPage', () => {
  it('reads shell blocks, joins continuation lines and takes the AWS-only comment line for the rest of its block', () => {
    // Prepare
    const page = [
      '```bash',
      'npm ci',
      '# AWS only: needs the deployed stack',
      'export RUN_API_URL=<RunApiUrl>',
      'aws stepfunctions start-execution --name run-1 \\',
      '  --input file://examples/cpu-sweep.json',
      '```',
    ].join('\n');

    // Act
    const found = commandsOfPage('page.md', page);

    // Assert
    expect(found.map(({ line, text, awsOnly }) => ({ line, text, awsOnly }))).toEqual([
      { line: 2, text: 'npm ci', awsOnly: false },
      { line: 4, text: 'export RUN_API_URL=<RunApiUrl>', awsOnly: true },
      {
        line: 5,
        text: 'aws stepfunctions start-execution --name run-1 --input file://examples/cpu-sweep.json',
        awsOnly: true,
      },
    ]);
    expect(found[2]?.env).toEqual({ RUN_API_URL: '<RunApiUrl>' });
  });

  it('marks one command AWS only with a trailing comment, and reads console prompts but not their output', () => {
    // Prepare
    const page = [
      '```console',
      '$ npm run -s runs -- list   # AWS only',
      'RUN-1  SUCCEEDED',
      '$ npm start',
      '```',
    ].join('\n');

    // Act
    const found = commandsOfPage('page.md', page);

    // Assert
    expect(found.map(({ text, awsOnly }) => ({ text, awsOnly }))).toEqual([
      { text: 'npm run -s runs -- list', awsOnly: true },
      { text: 'npm start', awsOnly: false },
    ]);
  });

  it('reads a plain block that holds commands and skips one that holds output', () => {
    // Prepare
    const page = ['```', 'npm run plan', '```', '', '```', 'Plan of run local-1: accepted', '```'].join('\n');

    // Act
    const found = commandsOfPage('page.md', page);

    // Assert
    expect(found.map(({ text }) => text)).toEqual(['npm run plan']);
  });

  it('splits words as a shell does, with quotes, redirections and a comment', () => {
    // Act
    const { words, comment } = shellWords(`npm run -s plan -- --json > "my plan.json" 2>&1 # the plan`);

    // Assert
    expect(words).toEqual(['npm', 'run', '-s', 'plan', '--', '--json', '>', 'my plan.json', '2>&1']);
    expect(comment).toBe('# the plan');
  });
});

describe('checkDocCommand', () => {
  /** One command of a one-line block, checked. */
  async function check(line: string, awsOnly = false): Promise<string[]> {
    const [command] = commandsOfPage(
      'page.md',
      ['```bash', `${line}${awsOnly ? ' # AWS only' : ''}`, '```'].join('\n'),
    );
    if (command === undefined) throw new Error(`no command in ${line}`);
    return checkDocCommand(command, context, { runIds: new Set() });
  }

  it.each([
    ['npm run plna', 'npm script "plna" does not exist'],
    ['npm start --plan', 'comes before "--", so npm takes it as its own option'],
    ['npm start -- --plna', 'local/cli.ts refuses its options (--input examples/local.json --plna):'],
    ['npm start -- --input my-run.json', '--input my-run.json does not exist in the repository'],
    ['npm run -s compare -- base-run new-run', 'the run base-run does not exist in the repository'],
    ['npm run bench -- --quick', 'npm run bench: got --quick, expected no arguments'],
    [
      'npm run deploy -- -c apiLoging=none',
      'the app reads the context keys apiLogging, configFile, not "apiLoging"',
    ],
    ['npx cdk destroy ServingOptimiser', "cdk destroy ServingOptimiser: the app's stack is ServingOptimizer"],
    ['git status', 'runs git, a program these checks cannot read'],
  ])('fails when the docs say `%s`', async (line, expected) => {
    // Act
    const problems = await check(line);

    // Assert
    expect(problems.join('\n')).toContain(expected);
  });

  it.each([
    ['npm run -s runs -- list --sinse 2026-11-01', 'got the option --sinse for "list"'],
    ['npm run -s runs -- status', 'got no arguments after status, expected exactly one run id'],
    ['aws stepfunctions start-executions --name r', '@aws-sdk/client-sfn has no such operation'],
    ['aws stepfunctions start-execution --state-machine <arn>', '--state-machine is not an option'],
    ['aws s3 copy model.tar.gz s3://bucket/model.tar.gz', 'aws s3 copy: expected one of cp'],
    [
      'aws sagemaker describe-endpoint --endpoint-name e --input file://examples/none.json',
      'aws: file://examples/none.json does not exist',
    ],
  ])('fails when an AWS-only command says `%s`', async (line, expected) => {
    // Act
    const problems = await check(line, true);

    // Assert
    expect(problems.join('\n')).toContain(expected);
  });

  it('fails when a command that runs here has a placeholder', async () => {
    // Act
    const problems = await check('npm start -- --input <your input>');

    // Assert
    expect(problems.join('\n')).toContain('has the placeholder(s) <your input>');
  });

  it('accepts a compare of runs that earlier commands of the block make', async () => {
    // Prepare
    const [first, second, compare] = commandsOfPage(
      'page.md',
      [
        '```bash',
        'npm start -- --run-id base',
        'npm start -- --run-id next',
        'npm run -s compare -- base runs/next/report.json',
        '```',
      ].join('\n'),
    );
    const state = { runIds: new Set<string>() };

    // Act
    const problems = [];
    for (const command of [first, second, compare]) {
      if (command !== undefined) problems.push(...(await checkDocCommand(command, context, state)));
    }

    // Assert
    expect(problems).toEqual([]);
    expect([...state.runIds]).toEqual(['base', 'next']);
  });
});
