import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ParseArgsConfig } from 'node:util';

/**
 * The shell commands of the user docs: every command line of a fenced shell block (```sh, ```bash,
 * ```shell, ```zsh; ```console lines that start with `$ `) and of a plain or ```text block that
 * holds commands, in README.md and docs/**\/*.md. A command that needs an AWS account says so with
 * a shell comment that starts with "AWS only": on a line of its own it marks every command after
 * it in the block, after a command it marks that command (docs/contributing.md).
 */

/** `npm run check:docs`'s options (bench/docs-check.ts), which the docs' commands are checked against. */
export const DOCS_CHECK_OPTIONS = {
  skip: { type: 'string', multiple: true, default: [] as string[] },
  keep: { type: 'boolean', default: false },
} satisfies ParseArgsConfig['options'];

export interface DocCommand {
  /** The page, relative to the repository. */
  readonly file: string;
  /** 1-based line of the command's first line. */
  readonly line: number;
  /** The command as written, continuation lines joined, its trailing comment removed. */
  readonly text: string;
  /** Its words, quotes removed; operators (`>`, `&&`, `|`, `;`) are words of their own. */
  readonly words: readonly string[];
  readonly awsOnly: boolean;
  /** The variables `export NAME=value` set earlier in the block. */
  readonly env: Readonly<Record<string, string>>;
  /** Which fenced block of the page (0-based): commands of one block run in order. */
  readonly block: number;
}

/** A comment that marks AWS-only commands: `# AWS only`, `# AWS only: needs the deployed stack`. */
export const AWS_ONLY_MARKER = /^#\s*AWS only\b/i;

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'zsh', 'console']);
/** Words that start a command line, for plain blocks (which may hold output instead). */
const COMMAND_WORDS = new Set(['npm', 'npx', 'node', 'aws', 'export', 'git', 'cd', 'cdk', 'tsx']);

export function docPages(repoRoot: string): string[] {
  const docsDir = join(repoRoot, 'docs');
  return [
    join(repoRoot, 'README.md'),
    ...readdirSync(docsDir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file) => join(docsDir, file)),
  ];
}

export function docCommands(repoRoot: string): DocCommand[] {
  return docPages(repoRoot).flatMap((page) =>
    commandsOfPage(relative(repoRoot, page), readFileSync(page, 'utf8')),
  );
}

interface Fence {
  readonly info: string;
  /** 1-based line numbers and texts of the block's content. */
  readonly lines: readonly { readonly line: number; readonly text: string }[];
}

function fencesOf(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: { info: string; lines: { line: number; text: string }[]; indent: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const fence = /^(\s*)```(.*)$/.exec(raw);
    if (open === undefined) {
      if (fence !== null) {
        open = { info: (fence[2] ?? '').trim(), lines: [], indent: (fence[1] ?? '').length };
      }
      return;
    }
    if (fence !== null && (fence[2] ?? '').trim() === '') {
      fences.push(open);
      open = undefined;
      return;
    }
    open.lines.push({ line: index + 1, text: raw.slice(Math.min(open.indent, raw.search(/\S|$/))) });
  });
  return fences;
}

/** A plain or text block holds commands when one of its lines starts like a command. */
function holdsCommands(fence: Fence): boolean {
  return fence.lines.some(({ text }) => {
    const first = text.trim().split(/\s+/)[0] ?? '';
    return COMMAND_WORDS.has(first) || text.startsWith('$ ');
  });
}

export function commandsOfPage(file: string, text: string): DocCommand[] {
  const commands: DocCommand[] = [];
  fencesOf(text).forEach((fence, block) => {
    const language = fence.info.split(/\s+/)[0] ?? '';
    const isShell = SHELL_LANGUAGES.has(language);
    if (!isShell && !(['', 'text'].includes(language) && holdsCommands(fence))) return;
    // In a console block only the prompt lines are commands; the rest is their output.
    const prompted = language === 'console';
    let blockAwsOnly = false;
    const env: Record<string, string> = {};
    let pending: { line: number; text: string } | undefined;
    for (const { line, text: raw } of fence.lines) {
      let content = raw.trimEnd();
      if (pending === undefined) {
        if (prompted) {
          if (!content.startsWith('$ ')) continue;
          content = content.slice(2);
        }
        if (content.trim() === '') continue;
        if (content.trim().startsWith('#')) {
          if (AWS_ONLY_MARKER.test(content.trim())) blockAwsOnly = true;
          continue;
        }
      }
      const joined = pending === undefined ? content : `${pending.text} ${content.trim()}`;
      if (joined.endsWith('\\')) {
        pending = { line: pending?.line ?? line, text: joined.slice(0, -1).trimEnd() };
        continue;
      }
      const start = pending?.line ?? line;
      pending = undefined;
      const { words, comment } = shellWords(joined);
      const command: DocCommand = {
        file,
        line: start,
        text: commandText(joined, comment),
        words,
        awsOnly: blockAwsOnly || (comment !== undefined && AWS_ONLY_MARKER.test(comment)),
        env: { ...env },
        block,
      };
      commands.push(command);
      const [first, assignment] = words;
      const exported = first === 'export' ? /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(assignment ?? '') : null;
      if (exported?.[1] !== undefined) env[exported[1]] = exported[2] ?? '';
    }
  });
  return commands;
}

function commandText(line: string, comment: string | undefined): string {
  const text = comment === undefined ? line : line.slice(0, line.lastIndexOf(comment));
  return text.trim();
}

const OPERATORS = ['&&', '||', '2>&1', '>>', '>', '<', '|', ';'];

/**
 * The words of one command line as a POSIX shell splits them, for the subset the docs use: single
 * and double quotes, backslash escapes, `#` comments and the operators above. Anything else
 * (`$(…)`, globs, variables) stays in its word as written; the checks refuse what they cannot read.
 */
export function shellWords(line: string): { words: string[]; comment?: string } {
  const words: string[] = [];
  let word: string | undefined;
  let index = 0;
  const push = (): void => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  while (index < line.length) {
    const char = line.charAt(index);
    if (/\s/.test(char)) {
      push();
      index += 1;
      continue;
    }
    if (char === '#' && word === undefined) {
      push();
      return { words, comment: line.slice(index) };
    }
    // A `<placeholder>` of the docs is one word, spaces included, not a redirection.
    const placeholderEnd = char === '<' ? line.indexOf('>', index) : -1;
    if (placeholderEnd !== -1 && !line.slice(index + 1, placeholderEnd).includes('<')) {
      word = (word ?? '') + line.slice(index, placeholderEnd + 1);
      index = placeholderEnd + 1;
      continue;
    }
    // `2>&1` only as a word of its own; `a>b` is `a`, `>`, `b` as in a shell.
    const operator = OPERATORS.find(
      (op) => line.startsWith(op, index) && (op !== '2>&1' || word === undefined),
    );
    if (operator !== undefined) {
      push();
      words.push(operator);
      index += operator.length;
      continue;
    }
    if (char === "'") {
      const end = line.indexOf("'", index + 1);
      word = (word ?? '') + line.slice(index + 1, end === -1 ? undefined : end);
      index = end === -1 ? line.length : end + 1;
      continue;
    }
    if (char === '"') {
      let end = index + 1;
      let quoted = '';
      while (end < line.length && line.charAt(end) !== '"') {
        if (line.charAt(end) === '\\' && end + 1 < line.length) end += 1;
        quoted += line.charAt(end);
        end += 1;
      }
      word = (word ?? '') + quoted;
      index = end + 1;
      continue;
    }
    if (char === '\\' && index + 1 < line.length) {
      word = (word ?? '') + line.charAt(index + 1);
      index += 2;
      continue;
    }
    word = (word ?? '') + char;
    index += 1;
  }
  push();
  return { words };
}

/** The simple commands of a line, split at `&&`, `||`, `;` and `|`, each without its redirections. */
export function simpleCommands(words: readonly string[]): { words: string[]; redirects: string[] }[] {
  const commands: { words: string[]; redirects: string[] }[] = [{ words: [], redirects: [] }];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    const current = commands[commands.length - 1] ?? { words: [], redirects: [] };
    if (['&&', '||', ';', '|'].includes(word)) {
      commands.push({ words: [], redirects: [] });
    } else if (['>', '>>', '<'].includes(word)) {
      current.redirects.push(words[index + 1] ?? '');
      index += 1;
    } else if (word !== '2>&1') {
      current.words.push(word);
    }
  }
  return commands.filter((command) => command.words.length > 0);
}
