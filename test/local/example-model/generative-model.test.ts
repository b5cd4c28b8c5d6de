import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InferenceSession } from 'onnxruntime-node';

import { generateGenerativeModel } from '../../../local/example-model/generative-model.js';
import {
  BOS_TOKEN_ID,
  encodePrompt,
  GENERATIVE_VOCABULARY,
  GENERATIVE_VOCABULARY_SIZE,
  tokenText,
  UNKNOWN_TOKEN_ID,
} from '../../../local/example-model/generative-vocabulary.js';
import { onnx } from '../../../local/example-model/onnx-builder.js';
import { compileModel } from '../../../local/compiler/compile-model.js';
import { WorkerStepRunner } from '../../../local/model-server/generative/step-runner.js';
import type { StepRunner } from '../../../local/model-server/generative/step-runner.js';

/** A narrow model keeps the test quick; the graph is the same as the default one's. */
const SMALL = { hiddenSize: 64, blocks: 1, passes: 2 } as const;

/**
 * Runs steps through the server's step worker: onnxruntime-node builds output tensors with the
 * host's Float32Array, which fails inside jest's VM context (test/local/model-server/run-model.ts).
 */
async function runStep(
  runner: StepRunner,
  tokens: readonly number[],
  state: Float32Array,
): Promise<{ logits: Float32Array; nextState: Float32Array }> {
  const output = await runner.step(BigInt64Array.from(tokens.map(BigInt)), state.slice());
  return { logits: output.logits, nextState: output.nextStates };
}

/** Greedy decoding over the raw step: the tokens a server would stream for `prompt`. */
async function greedyTokens(runner: StepRunner, prompt: string, count: number): Promise<number[]> {
  let state: Float32Array = new Float32Array(SMALL.hiddenSize);
  let logits: Float32Array = new Float32Array(0);
  for (const token of encodePrompt(prompt))
    ({ logits, nextState: state } = await runStep(runner, [token], state));
  const tokens: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const next = logits.indexOf(Math.max(...logits));
    tokens.push(next);
    ({ logits, nextState: state } = await runStep(runner, [next], state));
  }
  return tokens;
}

const startRunner = (modelPath: string): Promise<WorkerStepRunner> =>
  WorkerStepRunner.start({ modelPath, intraOpThreads: 1, spinWait: false });

describe('generateGenerativeModel', () => {
  let model: Uint8Array;
  let session: InferenceSession;
  let dir: string;
  let runner: WorkerStepRunner;

  beforeAll(async () => {
    model = generateGenerativeModel(SMALL);
    session = await InferenceSession.create(model, { graphOptimizationLevel: 'disabled' });
    dir = await mkdtemp(join(tmpdir(), 'generative-model-'));
    await writeFile(join(dir, 'model.onnx'), model);
    runner = await startRunner(join(dir, 'model.onnx'));
  });

  afterAll(async () => {
    await session.release();
    await runner.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the same bytes every time for the same options, and other bytes for another seed', () => {
    // Act
    const again = generateGenerativeModel(SMALL);
    const other = generateGenerativeModel({ ...SMALL, seed: 7 });

    // Assert
    expect(Buffer.from(again).equals(Buffer.from(model))).toBe(true);
    expect(Buffer.from(other).equals(Buffer.from(model))).toBe(false);
  });

  it('declares one decoding step: token ids and state in, logits and the next state out', () => {
    // Assert
    expect(session.inputMetadata).toEqual([
      { name: 'token_ids', isTensor: true, type: 'int64', shape: ['N'] },
      { name: 'state', isTensor: true, type: 'float32', shape: ['N', 64] },
    ]);
    expect(session.outputMetadata).toEqual([
      { name: 'logits', isTensor: true, type: 'float32', shape: ['N', GENERATIVE_VOCABULARY_SIZE] },
      { name: 'next_state', isTensor: true, type: 'float32', shape: ['N', 64] },
    ]);
  });

  it('writes LayerNormalization and GELU decomposed, as exports do, so the optimizer has them to fuse', () => {
    // Act
    const opTypes = new Set((onnx.ModelProto.decode(model).graph?.node ?? []).map((node) => node.opType));

    // Assert
    expect([...opTypes].sort()).toEqual(
      ['Add', 'Div', 'Erf', 'Gather', 'MatMul', 'Mul', 'Pow', 'ReduceMean', 'Sqrt', 'Sub', 'Tanh'].sort(),
    );
  });

  it('decodes the same tokens for the same prompt', async () => {
    // Act
    const first = await greedyTokens(runner, 'the endpoint serves tokens', 6);
    const second = await greedyTokens(runner, 'the endpoint serves tokens', 6);

    // Assert
    expect(second).toEqual(first);
    expect(first.every((id) => id > BOS_TOKEN_ID)).toBe(true);
  });

  it('gives each sequence of a batch the logits it gets alone', async () => {
    // Prepare
    const state = Float32Array.from({ length: 2 * SMALL.hiddenSize }, (_, i) => Math.sin(i));

    // Act
    const batch = await runStep(runner, [5, 40], state);
    const alone = await runStep(runner, [40], state.slice(SMALL.hiddenSize));

    // Assert
    const secondRow = Array.from(batch.logits.subarray(GENERATIVE_VOCABULARY_SIZE));
    secondRow.forEach((value, index) => {
      expect(value).toBeCloseTo(alone.logits[index] ?? Number.NaN, 4);
    });
  });

  it('compiles with the local compiler into fewer operators that decode the same tokens', async () => {
    // Prepare
    const compiledPath = join(dir, 'compiled.onnx');

    // Act
    await compileModel({
      sourceModelPath: join(dir, 'model.onnx'),
      outputModelPath: compiledPath,
      target: 'ml_c5',
    });
    const compiled = await startRunner(compiledPath);
    const tokens = await greedyTokens(compiled, 'the endpoint serves tokens', 6).finally(() =>
      compiled.close(),
    );

    // Assert
    const nodes = (bytes: Uint8Array) => onnx.ModelProto.decode(bytes).graph?.node?.length ?? 0;
    expect(nodes(await readFile(compiledPath))).toBeLessThan(nodes(model));
    expect(tokens).toEqual(await greedyTokens(runner, 'the endpoint serves tokens', 6));
  });
});

describe('generative vocabulary', () => {
  it('encodes a prompt as <s> then one id per word, unknown words as <unk>, punctuation dropped', () => {
    // Act
    const ids = encodePrompt('The model, quantum!');

    // Assert
    expect(ids).toEqual([
      BOS_TOKEN_ID,
      GENERATIVE_VOCABULARY.indexOf('the'),
      GENERATIVE_VOCABULARY.indexOf('model'),
      UNKNOWN_TOKEN_ID,
    ]);
  });

  it('writes a word token with its leading space and a special token as itself', () => {
    // Assert
    expect(tokenText(GENERATIVE_VOCABULARY.indexOf('latency'))).toBe(' latency');
    expect(tokenText(0)).toBe('</s>');
  });

  it('refuses a token id outside the vocabulary', () => {
    // Act / Assert
    expect(() => tokenText(GENERATIVE_VOCABULARY_SIZE)).toThrow(
      `Token id ${GENERATIVE_VOCABULARY_SIZE}: expected 0 to ${GENERATIVE_VOCABULARY_SIZE - 1}`,
    );
  });
});
