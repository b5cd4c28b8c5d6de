import { jest } from '@jest/globals';

/**
 * Runs `act` with `console.warn` captured (Vega logs its warnings there), and gives its result and
 * the warnings, each call's arguments joined; the spy is restored even when `act` throws.
 */
export async function withConsoleWarnings<T>(
  act: () => Promise<T>,
): Promise<{ result: T; warnings: string[] }> {
  const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  try {
    const result = await act();
    return { result, warnings: warn.mock.calls.map((call) => call.join(' ')) };
  } finally {
    warn.mockRestore();
  }
}
