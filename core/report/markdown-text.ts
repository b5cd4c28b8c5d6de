/** Text made safe for Markdown: user text reads as text in report.md and the comparison. */

/** Flattens line breaks (they would end a table row or a paragraph) into spaces. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

/**
 * Escapes text for Markdown: characters that would start emphasis, a code span, a link, inline
 * HTML or a table cell border are backslash-escaped, so user text reads as text. `_` and `>` are
 * left alone for the raw file's sake: GFM ignores intraword underscores, and `>` only quotes at
 * the start of a line, where this renderer always writes its own text.
 */
export function escapeMarkdown(text: string): string {
  return oneLine(text).replace(/[\\`*[\]<|]/g, (char) => `\\${char}`);
}

/** A code span that holds any text: a fence longer than any backtick run inside, `|` escaped for tables. */
export function markdownCode(text: string): string {
  const flat = oneLine(text);
  const longestRun = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${flat.replace(/\|/g, '\\|')}${pad}${fence}`;
}
