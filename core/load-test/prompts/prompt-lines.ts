/**
 * The lines of a prompt set (run input `prompts.uri`): JSON Lines, one prompt a line, either
 * `{"prompt": "…"}` (text, for any template) or `{"messages": [{"role": "user", "content": "…"}]}`
 * (a chat, for the OpenAI chat completion only). Blank lines are skipped; every other line must
 * be one of the two, and a line that is not says its number and what is wrong with it.
 */

/** The roles of the OpenAI chat completion's text messages (https://platform.openai.com/docs/api-reference/chat/create). */
export const CHAT_ROLES = ['system', 'user', 'assistant'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

export type Prompt = { readonly text: string } | { readonly messages: readonly ChatMessage[] };

/** A prompt and its line in the file (from 1). */
export interface NumberedPrompt {
  readonly line: number;
  readonly prompt: Prompt;
}

/** What is wrong with one line: the line (from 1), its start, and the problem as a phrase. */
export interface LineProblem {
  readonly line: number;
  readonly text: string;
  readonly problem: string;
}

export const PROMPT_LINE_EXPECTED =
  'one JSON object a line: {"prompt": "…"} or {"messages": [{"role": "user", "content": "…"}]}';

/** The start of a line as an issue shows it. */
function shown(line: string): string {
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A value as a problem quotes it; `missing` for an absent one. */
function quoted(value: unknown): string {
  return value === undefined ? 'missing' : JSON.stringify(value);
}

/** What is wrong with the message at `index`, or undefined. */
function messageProblem(message: unknown, index: number): string | undefined {
  if (!isObject(message)) return `messages[${index}] is not an object`;
  const unknown = Object.keys(message).find((key) => key !== 'role' && key !== 'content');
  if (unknown !== undefined) return `messages[${index}] has the key "${unknown}" (only "role" and "content")`;
  const role = message['role'];
  if (typeof role !== 'string' || !(CHAT_ROLES as readonly string[]).includes(role)) {
    return `messages[${index}].role is ${quoted(role)} (one of ${CHAT_ROLES.join(', ')})`;
  }
  const content = message['content'];
  if (typeof content !== 'string' || content === '') {
    return `messages[${index}].content is ${quoted(content)} (a non-empty string)`;
  }
  return undefined;
}

/** One non-blank line: its prompt, or the problem as a sentence. */
function readLine(text: string): Prompt | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return `the line is not JSON (${error instanceof Error ? error.message : String(error)})`;
  }
  if (!isObject(value)) return 'the line is JSON but not an object';
  const unknown = Object.keys(value).find((key) => key !== 'prompt' && key !== 'messages');
  if (unknown !== undefined) return `the key "${unknown}" is not "prompt" or "messages"`;
  const prompt = value['prompt'];
  const messages = value['messages'];
  if (prompt !== undefined && messages !== undefined) return 'the line has both "prompt" and "messages"';
  if (prompt !== undefined) {
    return typeof prompt === 'string' && prompt !== ''
      ? { text: prompt }
      : '"prompt" is not a non-empty string';
  }
  if (messages === undefined) return 'the line has neither "prompt" nor "messages"';
  if (!Array.isArray(messages) || messages.length === 0) return '"messages" is not a non-empty array';
  for (const [index, message] of messages.entries()) {
    const problem = messageProblem(message, index);
    if (problem !== undefined) return problem;
  }
  return { messages: messages as ChatMessage[] };
}

/** Every prompt of the text, and every line's problem. */
export function parsePromptLines(text: string): {
  readonly prompts: NumberedPrompt[];
  readonly problems: LineProblem[];
} {
  const prompts: NumberedPrompt[] = [];
  const problems: LineProblem[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    const read = readLine(line);
    if (typeof read === 'string') {
      problems.push({ line: index + 1, text: shown(line), problem: read });
    } else {
      prompts.push({ line: index + 1, prompt: read });
    }
  });
  return { prompts, problems };
}
