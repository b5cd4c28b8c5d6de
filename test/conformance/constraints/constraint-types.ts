/**
 * What a service declares about a value and its SDK schema does not carry: Smithy's
 * `smithy.api#pattern`, `#length`, `#range` and enum shapes (https://smithy.io/2.0/spec/constraint-traits.html).
 */
export interface ValueConstraint {
  /** ECMA 262 regular expression, not implicitly anchored (Smithy `pattern`). */
  readonly pattern?: string;
  /** Characters (Unicode code points) of a string, bytes of a blob, entries of a list or map. */
  readonly length?: { readonly min?: number; readonly max?: number };
  /** Inclusive bounds of a number. */
  readonly range?: { readonly min?: number; readonly max?: number };
  /** The values the service accepts (the SDK's exported enum object where it has one). */
  readonly enum?: readonly string[];
  /** Constraints of each element of a list. */
  readonly member?: ValueConstraint;
  /** Constraints of each key of a map. */
  readonly key?: ValueConstraint;
  /** Constraints of each value of a map. */
  readonly value?: ValueConstraint;
}

/** A member's constraints and the AWS page they come from. */
export interface MemberConstraint extends ValueConstraint {
  readonly source: string;
}

/**
 * Constraints keyed by Smithy member id, `namespace#Structure$member`
 * (https://smithy.io/2.0/spec/model.html#shape-id), e.g. `com.amazonaws.sagemaker#Tag$Key`: the
 * SDK's schemas name structures, not the simple shapes their members target, so the member is the
 * only key both sides share.
 */
export type ConstraintTable = Readonly<Record<string, MemberConstraint>>;
