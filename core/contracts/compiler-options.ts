/**
 * A compilation target's `OutputConfig.CompilerOptions` (the run input's
 * `compilation.compilerOptions`): for the Neuron targets, the Neuron compiler's own command-line
 * flags, "passed in as a JSON string" (SageMaker API reference, OutputConfig.CompilerOptions,
 * INFERENTIA: https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_OutputConfig.html).
 *
 * The flags offered are the ones that choose the precision the accelerator computes in, since that is
 * what changes a compiled model's answers (and what the output-quality guard is there to catch):
 * - ml_inf2 compiles with neuronx-cc: `--auto-cast none|matmult|all` (default none) and
 *   `--auto-cast-type bf16|fp16|tf32|fp8_e4m3` (default bf16), the right-most of competing flags
 *   winning (Neuron Compiler CLI Reference Guide (neuronx-cc),
 *   https://awsdocs-neuron.readthedocs-hosted.com/en/latest/compiler/neuronx-cc/api-reference-guide/neuron-compiler-cli-reference-guide.html);
 * - ml_inf1 compiles with neuron-cc: `--fast-math` with `all` (the default: every FP32 operator cast
 *   to BF16), `none` (the same as `fp32-cast-matmult-bf16 no-fast-relayout`), one `fp32-cast-*`
 *   and one `*-fast-relayout` value; `--fp32-cast` overrides the casting `--fast-math` chose
 *   (Neuron compiler CLI Reference Guide (neuron-cc),
 *   https://awsdocs-neuron.readthedocs-hosted.com/en/latest/compiler/neuron-cc/command-line-reference.html).
 * The CPU and GPU targets' options (`mcpu`, `mattr`, `gpu-code`, …) choose code generation, not
 * precision, and are not offered.
 */

/** Which FP32 operators a Neuron compile casts: none, those of the matrix-multiply engine, or all. */
export const AUTO_CAST_MODES = ['none', 'matmult', 'all'] as const;
export type AutoCastMode = (typeof AUTO_CAST_MODES)[number];

/** The lower precision the cast operators compute in (neuronx-cc's `--auto-cast-type` values). */
export const AUTO_CAST_TYPES = ['bf16', 'fp16', 'tf32', 'fp8_e4m3'] as const;
export type AutoCastType = (typeof AUTO_CAST_TYPES)[number];

/** The precision a Neuron compile computes a model's FP32 operators in. */
export interface AutoCast {
  readonly mode: AutoCastMode;
  readonly type: AutoCastType;
}

/** The targets whose compiler options this project reads, and the compiler each one runs. */
export const NEURON_COMPILERS = { ml_inf1: 'neuron-cc', ml_inf2: 'neuronx-cc' } as const;
export type NeuronTarget = keyof typeof NEURON_COMPILERS;

export function isNeuronTarget(target: string): target is NeuronTarget {
  return Object.hasOwn(NEURON_COMPILERS, target);
}

/**
 * `OutputConfig.CompilerOptions` is 3 to 1024 characters (the SageMaker Smithy model's
 * `CompilerOptions` shape); a Neuron target's flags travel JSON-encoded, quotes included.
 */
export const COMPILER_OPTIONS_LENGTH = { min: 3, max: 1024 } as const;

/** The `CompilerOptions` string CreateCompilationJob gets for a Neuron target's flags. */
export function compilerOptionsParameter(flags: string): string {
  return JSON.stringify(flags);
}

const NEURONX_EXPECTED =
  `neuronx-cc flags: --auto-cast ${AUTO_CAST_MODES.join('|')} and --auto-cast-type ${AUTO_CAST_TYPES.join('|')}, ` +
  'such as "--auto-cast matmult --auto-cast-type fp16"';

/** neuron-cc's `--fast-math` casting values, and the precision each one computes in. */
const FAST_MATH_CASTS: Readonly<Record<string, AutoCast>> = {
  'fp32-cast-all': { mode: 'all', type: 'bf16' },
  'fp32-cast-all-fp16': { mode: 'all', type: 'fp16' },
  'fp32-cast-matmult': { mode: 'matmult', type: 'bf16' },
  'fp32-cast-matmult-bf16': { mode: 'matmult', type: 'bf16' },
  'fp32-cast-matmult-fp16': { mode: 'matmult', type: 'fp16' },
};
/** `all` and `none` are shorthands for a casting and a transpose choice. */
const FAST_MATH_PRESETS: Readonly<Record<string, AutoCast>> = {
  all: { mode: 'all', type: 'bf16' },
  none: { mode: 'matmult', type: 'bf16' },
};
/** Transposes by the matrix engine or byte by byte: same values either way, so no effect on answers. */
const FAST_MATH_RELAYOUTS = ['fast-relayout', 'no-fast-relayout'];
/** `--fp32-cast` values (the older spelling of the `fp32-cast-*` ones). */
const FP32_CASTS: Readonly<Record<string, AutoCast>> = {
  all: { mode: 'all', type: 'bf16' },
  'all-fp16': { mode: 'all', type: 'fp16' },
  matmult: { mode: 'matmult', type: 'bf16' },
  'matmult-bf16': { mode: 'matmult', type: 'bf16' },
  'matmult-fp16': { mode: 'matmult', type: 'fp16' },
};

const NEURON_CC_EXPECTED =
  `neuron-cc flags: --fast-math with ${[...Object.keys(FAST_MATH_PRESETS), ...Object.keys(FAST_MATH_CASTS), ...FAST_MATH_RELAYOUTS].join('|')} ` +
  `and --fp32-cast ${Object.keys(FP32_CASTS).join('|')}, such as "--fast-math fp32-cast-matmult-fp16"`;

/** What each Neuron compiler computes in when no flag says otherwise. */
export const DEFAULT_AUTO_CAST: Readonly<Record<NeuronTarget, AutoCast>> = {
  ml_inf1: { mode: 'all', type: 'bf16' },
  ml_inf2: { mode: 'none', type: 'bf16' },
};

export type ParsedCompilerOptions =
  { readonly ok: true; readonly autoCast: AutoCast } | { readonly ok: false; readonly expected: string };

/** A target's flags read as its Neuron compiler reads them; `expected` says what would be read. */
export function parseCompilerOptions(target: string, flags: string): ParsedCompilerOptions {
  if (!isNeuronTarget(target)) {
    return {
      ok: false,
      expected: `compiler options for a Neuron target only (${Object.keys(NEURON_COMPILERS).join(', ')}), not ${target}`,
    };
  }
  const tokens = flags
    .trim()
    .split(/\s+/)
    .filter((token) => token.length > 0);
  return target === 'ml_inf2' ? parseNeuronx(tokens) : parseNeuronCc(tokens);
}

function parseNeuronx(tokens: readonly string[]): ParsedCompilerOptions {
  let { mode, type } = DEFAULT_AUTO_CAST.ml_inf2;
  const fail = { ok: false, expected: NEURONX_EXPECTED } as const;
  if (tokens.length === 0) return fail;
  for (let index = 0; index < tokens.length; index += 2) {
    const [flag, value] = [tokens[index], tokens[index + 1]];
    if (flag === '--auto-cast' && isOneOf(AUTO_CAST_MODES, value)) mode = value;
    else if (flag === '--auto-cast-type' && isOneOf(AUTO_CAST_TYPES, value)) type = value;
    else return fail;
  }
  return { ok: true, autoCast: { mode, type } };
}

function parseNeuronCc(tokens: readonly string[]): ParsedCompilerOptions {
  const fail = { ok: false, expected: NEURON_CC_EXPECTED } as const;
  let fastMath: AutoCast | undefined;
  let fp32Cast: AutoCast | undefined;
  let index = 0;
  if (tokens.length === 0) return fail;
  while (index < tokens.length) {
    const flag = tokens[index];
    index += 1;
    if (flag === '--fp32-cast') {
      fp32Cast = FP32_CASTS[tokens[index] ?? ''];
      if (fp32Cast === undefined) return fail;
      index += 1;
    } else if (flag === '--fast-math') {
      const values: string[] = [];
      while (index < tokens.length && !(tokens[index] ?? '').startsWith('-')) {
        values.push(tokens[index] ?? '');
        index += 1;
      }
      const read = readFastMath(values);
      if (read === undefined) return fail;
      fastMath = read;
    } else {
      return fail;
    }
  }
  return { ok: true, autoCast: fp32Cast ?? fastMath ?? DEFAULT_AUTO_CAST.ml_inf1 };
}

/**
 * `--fast-math` values: at most one preset (`all`, `none`), one `fp32-cast-*` and one relayout; a
 * cast value overrides the preset's casting.
 */
function readFastMath(values: readonly string[]): AutoCast | undefined {
  const presets = values.filter((value) => FAST_MATH_PRESETS[value] !== undefined);
  const casts = values.filter((value) => FAST_MATH_CASTS[value] !== undefined);
  const relayouts = values.filter((value) => FAST_MATH_RELAYOUTS.includes(value));
  const known = presets.length + casts.length + relayouts.length;
  if (values.length === 0 || known !== values.length) return undefined;
  if (presets.length > 1 || casts.length > 1 || relayouts.length > 1) return undefined;
  return FAST_MATH_CASTS[casts[0] ?? ''] ?? FAST_MATH_PRESETS[presets[0] ?? ''] ?? DEFAULT_AUTO_CAST.ml_inf1;
}

function isOneOf<T extends string>(values: readonly T[], value: string | undefined): value is T {
  return value !== undefined && (values as readonly string[]).includes(value);
}

interface Issue {
  readonly path: PropertyKey[];
  readonly message: string;
  readonly given: unknown;
}

/**
 * The rules of `compilation.compilerOptions`: a key per target listed in `compilation.targets`,
 * flags its Neuron compiler reads, short enough for CreateCompilationJob once JSON-encoded.
 */
export function compilerOptionsIssues(compilation: {
  readonly targets: readonly string[];
  readonly compilerOptions?: Readonly<Record<string, string>> | undefined;
}): Issue[] {
  return Object.entries(compilation.compilerOptions ?? {}).flatMap(([target, flags]): Issue[] => {
    const path = ['compilation', 'compilerOptions', target];
    if (!compilation.targets.includes(target)) {
      return [
        {
          path,
          message: `a target listed in compilation.targets (${compilation.targets.join(', ') || 'none listed'})`,
          given: target,
        },
      ];
    }
    const parsed = parseCompilerOptions(target, flags);
    if (!parsed.ok) return [{ path, message: parsed.expected, given: flags }];
    const length = compilerOptionsParameter(flags).length;
    if (length > COMPILER_OPTIONS_LENGTH.max) {
      return [
        {
          path,
          message: `flags of at most ${COMPILER_OPTIONS_LENGTH.max} characters once JSON-encoded (CreateCompilationJob's CompilerOptions)`,
          given: `${length} characters`,
        },
      ];
    }
    return [];
  });
}
