import { describe, expect, it } from '@jest/globals';
import type { AslDefinition } from '../../../local/runner/asl.js';
import { createEngine } from '../../../local/runner/engine.js';

const valid: AslDefinition = { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } };
/** Its StartAt names no state: asl-validator refuses it. */
const invalid: AslDefinition = { StartAt: 'Missing', States: { Done: { Type: 'Succeed' } } };

const REFUSAL =
  'State machine definition is invalid, see error(s) below:\n' +
  ' MISSING_TRANSITION_TARGET: State Done is not reachable\n' +
  "MISSING_TRANSITION_TARGET: Missing 'StartAt'|'Next'|'Default' target: Missing";

function refusal(run: () => unknown): string {
  try {
    run();
    return 'accepted';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe('createEngine', () => {
  it('remembers a definition it validated', () => {
    // Prepare
    const validated = new Set<string>();

    // Act
    createEngine(valid, validated);

    // Assert
    expect([...validated]).toEqual([JSON.stringify(valid)]);
  });

  it('skips the validation of a definition validated before', () => {
    // Prepare: as if this text had passed once (it would not: the skip is what is observed).
    const validated = new Set([JSON.stringify(invalid)]);

    // Act
    const outcome = refusal(() => createEngine(invalid, validated));

    // Assert
    expect(outcome).toBe('accepted');
  });

  it('refuses an invalid definition every time, never remembering it', () => {
    // Prepare
    const validated = new Set<string>();

    // Act
    const outcomes = [
      refusal(() => createEngine(invalid, validated)),
      refusal(() => createEngine(invalid, validated)),
    ];

    // Assert
    expect({ outcomes, validated: [...validated] }).toEqual({
      outcomes: [REFUSAL, REFUSAL],
      validated: [],
    });
  });
});
