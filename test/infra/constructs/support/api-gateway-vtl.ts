import { render } from 'velocityjs';

/**
 * Renders an API Gateway mapping template with a Velocity engine (velocityjs) and the variables API
 * Gateway provides, reproduced from its mapping-template reference:
 *
 * - `$input.path(p)` / `$input.json(p)`: the value at a JSONPath of the body / that value as JSON;
 * - `$util.escapeJavaScript(s)`: Apache Commons Lang `StringEscapeUtils.escapeJavaScript`, which
 *   escapes `'` as `\'` (invalid in JSON: the pitfall the templates undo);
 * - `$context.requestId`, `domainName`, `stage`, and `responseOverride.status` that a template sets.
 *
 * Strings returned by `$util` behave as Java strings: `replaceAll` takes a Java regex, so a template
 * is checked with the semantics it has in API Gateway, not JavaScript's.
 */

export interface RenderedTemplate {
  readonly output: string;
  /** `#set($context.responseOverride.status = …)`, when the template set it. */
  readonly statusOverride: number | undefined;
}

export interface TemplateContext {
  readonly requestId?: string;
  readonly domainName?: string;
  readonly stage?: string;
}

/** A `java.lang.String` as Velocity exposes it, for what the templates call. */
class JavaString {
  constructor(private readonly value: string) {}

  /** Java's `replaceAll(regex, replacement)`: both arguments are patterns, not literals. */
  replaceAll(regex: string, replacement: string): JavaString {
    const jsReplacement = replacement.replace(/\\(.)/g, '$1').replace(/\$(\d)/g, '$$$1');
    return new JavaString(this.value.replace(new RegExp(regex, 'g'), jsReplacement));
  }

  toString(): string {
    return this.value;
  }
}

/** Commons Lang 2 `StringEscapeUtils.escapeJavaScript`, code unit by code unit, hex in upper case. */
export function escapeJavaScript(text: string): string {
  let escaped = '';
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const hex = code.toString(16).toUpperCase();
    if (code > 0x7f) escaped += `\\u${hex.padStart(4, '0')}`;
    else if (code < 32) {
      const named: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };
      escaped += named[code] ?? `\\u${hex.padStart(4, '0')}`;
    } else {
      const char = text.charAt(index);
      const special: Record<string, string> = { "'": "\\'", '"': '\\"', '\\': '\\\\', '/': '\\/' };
      escaped += special[char] ?? char;
    }
  }
  return escaped;
}

function valueAt(body: unknown, path: string): unknown {
  if (path === '$') return body;
  if (!path.startsWith('$.')) throw new Error(`JSONPath ${path}: only $ and $.a.b paths are emulated`);
  let value: unknown = body;
  for (const key of path.slice(2).split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  }
  return value;
}

export function renderMappingTemplate(
  template: string,
  body: unknown,
  context: TemplateContext = {},
): RenderedTemplate {
  const responseOverride: { status?: number } = {};
  const variables = {
    input: {
      path: (path: string) => valueAt(body, path),
      json: (path: string) => JSON.stringify(valueAt(body, path)),
    },
    util: { escapeJavaScript: (text: unknown) => new JavaString(escapeJavaScript(String(text))) },
    context: {
      requestId: context.requestId ?? 'c6af9ac6-7b61-11e6-9a41-93e812345678',
      domainName: context.domainName ?? 'abc123.execute-api.us-east-1.amazonaws.com',
      stage: context.stage ?? 'v1',
      responseOverride,
    },
  };
  const output = render(template, variables);
  return { output, statusOverride: responseOverride.status };
}
