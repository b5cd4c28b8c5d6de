import { describe, expect, it } from '@jest/globals';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The user docs hold together: every relative link of README.md and docs/*.md names a file that
 * exists and, when it names a heading, a heading that page has (GitHub's anchor rules); the README
 * stays short enough to read in ten minutes; and no page narrates the project's history (issue
 * numbers), which the commits keep.
 */
const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOCS_DIR = join(REPO_ROOT, 'docs');
const PAGES = [
  join(REPO_ROOT, 'README.md'),
  ...readdirSync(DOCS_DIR, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join(DOCS_DIR, file)),
];
/** About ten minutes of reading; everything else lives in docs/. */
const README_MAX_LINES = 250;

/** GitHub's heading anchor: lower case, punctuation but `-` and `_` dropped, spaces to `-`. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** The lines of a page outside fenced code blocks. */
function proseLines(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

function anchorsOf(page: string): Set<string> {
  const headings = proseLines(readFileSync(page, 'utf8')).flatMap((line) => {
    const match = /^#{1,6} (.+)$/.exec(line);
    return match?.[1] === undefined ? [] : [anchorOf(match[1])];
  });
  return new Set(headings);
}

interface Link {
  readonly page: string;
  readonly target: string;
}

function relativeLinks(page: string): Link[] {
  const text = proseLines(readFileSync(page, 'utf8')).join('\n');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^(https?:|mailto:)/.test(target))
    .map((target) => ({ page: relative(REPO_ROOT, page), target }));
}

const links = PAGES.flatMap(relativeLinks);

describe('user docs', () => {
  it('has pages and links to check', () => {
    expect(PAGES.length).toBeGreaterThan(5);
    expect(links.length).toBeGreaterThan(20);
  });

  it.each(links.map((link) => [link.page, link.target] as const))(
    '%s links to %s, which exists',
    (page, target) => {
      // Prepare
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(REPO_ROOT, page) : normalize(join(REPO_ROOT, dirname(page), path));

      // Act
      const exists = existsSync(file);
      const anchors = exists && anchor !== undefined && file.endsWith('.md') ? anchorsOf(file) : undefined;

      // Assert
      expect({ target, exists }).toEqual({ target, exists: true });
      if (anchors !== undefined) expect([...anchors]).toContain(anchor);
    },
  );

  it('keeps the README short enough to read in ten minutes', () => {
    // Act
    const lines = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').split('\n').length;

    // Assert
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it.each(PAGES.map((page) => relative(REPO_ROOT, page)))('%s names no issue number', (page) => {
    // Act
    const mentions = readFileSync(join(REPO_ROOT, page), 'utf8').match(/\bissue #\d+|\(#\d+\)/gi) ?? [];

    // Assert
    expect(mentions).toEqual([]);
  });
});
