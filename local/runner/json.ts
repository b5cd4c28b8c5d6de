import { jsonBytes } from '../../core/contracts/index.js';

/** JSON values as Step Functions passes them between states. */
export type JsonPrimitive = null | boolean | number | string;
export type JsonValue = JsonPrimitive | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What a Lambda (or an SDK response) becomes once serialized, as on AWS: `undefined` → `null`,
 * dates → ISO strings, functions dropped. Anything that cannot be serialized is a handler bug.
 */
/** `JSON.stringify` typed as it behaves: `undefined` for undefined, functions and symbols. */
export function stringifyJson(value: unknown): string | undefined {
  return JSON.stringify(value);
}

export function toJsonValue(value: unknown, what: string): JsonValue {
  let text: string | undefined;
  try {
    text = stringifyJson(value);
  } catch (error) {
    throw new TypeError(
      `${what} is not JSON-serializable: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return text === undefined ? null : (JSON.parse(text) as JsonValue);
}

/** Size of a value as Step Functions measures it: its JSON text, UTF-8 encoded. */
export function jsonByteLength(value: JsonValue): number {
  return jsonBytes(value);
}
