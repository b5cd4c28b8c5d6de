import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { create as createTar, extract as extractTar, list as listTar } from 'tar';
import { InvalidRunInputError } from '../../../../core/contracts/errors.js';
import type { PackageModelEvent } from '../../../../core/contracts/optimization-state.js';
import { packageModel } from '../../../../core/steps/optimization/package-model.js';
import { MemoryObjectStore, silentLogger } from '../../../support/memory-object-store.js';

const PACKAGED_MODEL_URI = 's3://mso-artifacts/models/bert/model.tar.gz';
const CODE_URI = 's3://mso-artifacts/models/bert/inference.py';
const RUN_PREFIX = 's3://mso-artifacts/runs/r1/';
const OUTPUT_URI = 's3://mso-artifacts/runs/r1/model/model.tar.gz';
const INFERENCE_PY = 'def model_fn(model_dir):\n    return None\n';

let scratch: string;

beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'package-model-test-'));
});

afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** The plan of a run whose model is packaged again (a `.tar.gz` with inference code to add). */
function event(model: { artifactUri: string; inferenceCodeUri?: string }): PackageModelEvent {
  return {
    plan: {
      runId: 'r1',
      runPrefixUri: RUN_PREFIX,
      compilations: [],
      model: {
        framework: 'pytorch',
        environment: {},
        ...model,
        packagedUri: OUTPUT_URI,
        needsPackaging: true,
      },
    },
  };
}

/**
 * A `.tar.gz` of `files` (path → content, or `{ symlink }`), in the order given. `preservePaths`
 * keeps `..` and absolute paths as written, as a hostile archive would carry them.
 */
async function archiveOf(
  files: Readonly<Record<string, string | { readonly symlink: string }>>,
  options: { readonly preservePaths?: boolean } = {},
): Promise<Uint8Array> {
  const folder = await mkdtemp(join(scratch, 'src-'));
  const source = join(folder, 'root');
  await mkdir(source);
  for (const [path, content] of Object.entries(files)) {
    const target = join(source, path);
    await mkdir(dirname(target), { recursive: true });
    if (typeof content === 'string') await writeFile(target, content);
    else await symlink(content.symlink, target);
  }
  const file = join(folder, 'archive.tar.gz');
  await createTar({ file, cwd: source, gzip: true, preservePaths: options.preservePaths ?? false }, [
    ...Object.keys(files),
  ]);
  return new Uint8Array(await readFile(file));
}

interface ListedEntry {
  readonly path: string;
  readonly type: string;
  readonly linkpath?: string;
}

/** The entries of the archive the step wrote, read back from its bytes with `tar`. */
async function entriesOf(store: MemoryObjectStore, uri: string): Promise<ListedEntry[]> {
  const body = store.objects.get(uri)?.body;
  if (body === undefined) throw new Error(`Nothing stored at ${uri}`);
  const file = join(scratch, 'output.tar.gz');
  await writeFile(file, body);
  const entries: ListedEntry[] = [];
  await listTar({
    file,
    onReadEntry: (entry) => {
      entries.push({
        path: entry.path,
        type: entry.type,
        ...(entry.linkpath === undefined || entry.linkpath === '' ? {} : { linkpath: entry.linkpath }),
      });
    },
  });
  return entries;
}

async function extracted(store: MemoryObjectStore, uri: string, path: string): Promise<string> {
  const folder = join(scratch, 'extracted');
  await mkdir(folder, { recursive: true });
  await writeFile(join(scratch, 'to-extract.tar.gz'), store.objects.get(uri)?.body ?? new Uint8Array());
  await extractTar({ file: join(scratch, 'to-extract.tar.gz'), cwd: folder });
  return readFile(join(folder, path), 'utf8');
}

async function refusal(run: Promise<unknown>): Promise<InvalidRunInputError> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (error instanceof InvalidRunInputError) return error;
  throw new Error(`expected an InvalidRunInputError, got ${String(error)}`);
}

describe('packageModel: a packaged model with inference code', () => {
  it('repacks the model archive’s contents at the root, with code/inference.py beside them', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(PACKAGED_MODEL_URI, await archiveOf({ 'model.pt': 'weights' }))
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    await packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
      store,
      logger: silentLogger,
    });

    // Assert
    expect(await entriesOf(store, OUTPUT_URI)).toEqual([
      { path: 'code/', type: 'Directory' },
      { path: 'code/inference.py', type: 'File' },
      { path: 'model.pt', type: 'File' },
    ]);
    expect(await extracted(store, OUTPUT_URI, 'model.pt')).toBe('weights');
  });

  it('keeps every file, folder and inside link of the model archive', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(
        PACKAGED_MODEL_URI,
        await archiveOf({
          'config.json': '{}',
          'tokenizer/vocab.txt': 'a b c',
          'tokenizer/current': { symlink: 'vocab.txt' },
          'weights/model.safetensors': 'weights',
        }),
      )
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    await packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
      store,
      logger: silentLogger,
    });

    // Assert
    expect(await entriesOf(store, OUTPUT_URI)).toEqual([
      { path: 'code/', type: 'Directory' },
      { path: 'code/inference.py', type: 'File' },
      { path: 'config.json', type: 'File' },
      { path: 'tokenizer/', type: 'Directory' },
      { path: 'tokenizer/current', type: 'SymbolicLink', linkpath: 'vocab.txt' },
      { path: 'tokenizer/vocab.txt', type: 'File' },
      { path: 'weights/', type: 'Directory' },
      { path: 'weights/model.safetensors', type: 'File' },
    ]);
  });

  it('adds a single script to the archive’s own code/ folder, keeping what is there', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(
        PACKAGED_MODEL_URI,
        await archiveOf({ 'model.pt': 'weights', 'code/requirements.txt': 'transformers\n' }),
      )
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    await packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
      store,
      logger: silentLogger,
    });

    // Assert
    expect((await entriesOf(store, OUTPUT_URI)).map((entry) => entry.path)).toEqual([
      'code/',
      'code/inference.py',
      'code/requirements.txt',
      'model.pt',
    ]);
  });

  it('replaces the archive’s own code/ folder with a code folder archive', async () => {
    // Prepare
    const codeArchiveUri = 's3://mso-artifacts/models/bert/code.tar.gz';
    const store = new MemoryObjectStore()
      .seed(PACKAGED_MODEL_URI, await archiveOf({ 'model.pt': 'weights', 'code/old.py': 'old' }))
      .seed(codeArchiveUri, await archiveOf({ 'inference.py': INFERENCE_PY, 'lib/util.py': '' }));

    // Act
    await packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: codeArchiveUri }), {
      store,
      logger: silentLogger,
    });

    // Assert
    expect((await entriesOf(store, OUTPUT_URI)).map((entry) => entry.path)).toEqual([
      'code/',
      'code/inference.py',
      'code/lib/',
      'code/lib/util.py',
      'model.pt',
    ]);
  });

  it('keeps the executable bit of a packaged file', async () => {
    // Prepare
    const folder = join(scratch, 'exec');
    await mkdir(folder);
    await writeFile(join(folder, 'serve.sh'), '#!/bin/sh\n');
    await chmod(join(folder, 'serve.sh'), 0o755);
    await createTar({ file: join(scratch, 'exec.tar.gz'), cwd: folder, gzip: true }, ['serve.sh']);
    const store = new MemoryObjectStore()
      .seed(PACKAGED_MODEL_URI, new Uint8Array(await readFile(join(scratch, 'exec.tar.gz'))))
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    await packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
      store,
      logger: silentLogger,
    });

    // Assert
    const modes: Record<string, number> = {};
    await writeFile(join(scratch, 'output.tar.gz'), store.objects.get(OUTPUT_URI)?.body ?? new Uint8Array());
    await listTar({
      file: join(scratch, 'output.tar.gz'),
      onReadEntry: (entry) => {
        modes[entry.path] = (entry.mode ?? 0) & 0o777;
      },
    });
    expect(modes['serve.sh']).toBe(0o755);
  });
});

describe('packageModel: unsafe archives', () => {
  it('refuses a model archive with a ../evil entry, writing nothing', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(
        PACKAGED_MODEL_URI,
        await archiveOf({ 'model.pt': 'weights', '../evil': 'payload' }, { preservePaths: true }),
      )
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    const error = await refusal(
      packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
        store,
        logger: silentLogger,
      }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'model.artifactUri',
        given: 'model.tar.gz with an unsafe entry: "../evil" (a ".." path segment)',
        expected:
          'entries with relative paths inside the archive and links that stay inside it: ' +
          'rebuild it from the model folder (e.g. tar -czf model.tar.gz -C model-folder .)',
      },
    ]);
    expect(store.objects.has(OUTPUT_URI)).toBe(false);
  });

  it('refuses a model archive with a link pointing outside it', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(
        PACKAGED_MODEL_URI,
        await archiveOf({ 'model.pt': 'weights', 'config.json': { symlink: '../../etc/passwd' } }),
      )
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    const error = await refusal(
      packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
        store,
        logger: silentLogger,
      }),
    );

    // Assert
    expect(error.issues[0]?.given).toBe(
      'model.tar.gz with an unsafe entry: "config.json" (a link to "../../etc/passwd", outside the archive)',
    );
  });

  it('refuses a code archive with an absolute path, naming model.inferenceCodeUri', async () => {
    // Prepare
    const codeArchiveUri = 's3://mso-artifacts/models/bert/code.tar.gz';
    const absolute = join(scratch, 'abs', 'inference.py');
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, INFERENCE_PY);
    await createTar({ file: join(scratch, 'code.tar.gz'), gzip: true, preservePaths: true }, [absolute]);
    const store = new MemoryObjectStore()
      .seed(PACKAGED_MODEL_URI, await archiveOf({ 'model.pt': 'weights' }))
      .seed(codeArchiveUri, new Uint8Array(await readFile(join(scratch, 'code.tar.gz'))));

    // Act
    const error = await refusal(
      packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: codeArchiveUri }), {
        store,
        logger: silentLogger,
      }),
    );

    // Assert
    expect(error.issues[0]).toMatchObject({
      field: 'model.inferenceCodeUri',
      given: `code.tar.gz with an unsafe entry: ${JSON.stringify(absolute)} (an absolute path)`,
    });
  });

  it('refuses a model "archive" that is not a tar.gz, saying what it expected', async () => {
    // Prepare
    const store = new MemoryObjectStore()
      .seed(PACKAGED_MODEL_URI, 'not an archive at all, just some text')
      .seed(CODE_URI, INFERENCE_PY);

    // Act
    const error = await refusal(
      packageModel(event({ artifactUri: PACKAGED_MODEL_URI, inferenceCodeUri: CODE_URI }), {
        store,
        logger: silentLogger,
      }),
    );

    // Assert
    expect(error.issues).toEqual([
      {
        field: 'model.artifactUri',
        given:
          'model.tar.gz, which could not be read as a .tar.gz (TAR_BAD_ARCHIVE: Unrecognized archive format)',
        expected: 'a gzip-compressed tar archive',
      },
    ]);
  });
});

describe('packageModel: a raw model file', () => {
  it('places the file at the root with code/inference.py', async () => {
    // Prepare
    const modelUri = 's3://mso-artifacts/models/cnn/model.onnx';
    const store = new MemoryObjectStore().seed(modelUri, 'onnx').seed(CODE_URI, INFERENCE_PY);

    // Act
    await packageModel(event({ artifactUri: modelUri, inferenceCodeUri: CODE_URI }), {
      store,
      logger: silentLogger,
    });

    // Assert
    expect((await entriesOf(store, OUTPUT_URI)).map((entry) => entry.path)).toEqual([
      'code/',
      'code/inference.py',
      'model.onnx',
    ]);
  });
});

describe('packageModel: a Hugging Face Hub model', () => {
  const HUB = { modelId: 'distilbert/distilbert-base-uncased', task: 'fill-mask' };

  it('packages nothing and gives no model data when no inference code is given', async () => {
    // Prepare
    const store = new MemoryObjectStore();

    // Act
    const packaged = await packageModel(
      {
        plan: {
          runId: 'r1',
          runPrefixUri: RUN_PREFIX,
          compilations: [],
          model: { framework: 'huggingface', environment: {}, hub: HUB, needsPackaging: false },
        },
      },
      { store, logger: silentLogger },
    );

    // Assert
    expect([packaged, [...store.objects.keys()]]).toEqual([{ reused: true }, []]);
  });

  it('packages the inference code alone, under code/, when it is given', async () => {
    // Prepare
    const store = new MemoryObjectStore().seed(CODE_URI, INFERENCE_PY);

    // Act
    const packaged = await packageModel(
      {
        plan: {
          runId: 'r1',
          runPrefixUri: RUN_PREFIX,
          compilations: [],
          model: {
            framework: 'huggingface',
            environment: {},
            hub: HUB,
            inferenceCodeUri: CODE_URI,
            packagedUri: OUTPUT_URI,
            needsPackaging: true,
          },
        },
      },
      { store, logger: silentLogger },
    );

    // Assert
    expect(packaged.modelDataUrl).toBe(OUTPUT_URI);
    expect(await entriesOf(store, OUTPUT_URI)).toEqual([
      { path: 'code/', type: 'Directory' },
      { path: 'code/inference.py', type: 'File' },
    ]);
  });
});

describe('packageModel: the source of an optimization job', () => {
  /** A run whose model is the user's own model.tar.gz, with one optimization. */
  function optimizingEvent(): PackageModelEvent {
    return {
      plan: {
        runId: 'r1',
        runPrefixUri: RUN_PREFIX,
        compilations: [
          {
            target: 'g5-awq',
            jobName: 'mso-oj-g5-awq',
            outputUri: `${RUN_PREFIX}optimized/g5-awq/`,
            optimization: {
              deploymentInstanceType: 'ml.g5.xlarge',
              techniques: { quantization: { overrideEnvironment: { OPTION_QUANTIZE: 'awq' } } },
            },
          },
        ],
        model: {
          framework: 'djl-lmi',
          environment: {},
          artifactUri: PACKAGED_MODEL_URI,
          packagedUri: PACKAGED_MODEL_URI,
          needsPackaging: false,
        },
      },
    };
  }

  it('unpacks the model archive under the run’s prefix, the uncompressed S3 prefix an optimization job reads', async () => {
    // Prepare
    const archive = await archiveOf({ 'config.json': '{}', 'weights/part-1.safetensors': 'w1' });
    const store = new MemoryObjectStore().seed(PACKAGED_MODEL_URI, archive);

    // Act
    const packaged = await packageModel(optimizingEvent(), { store, logger: silentLogger });

    // Assert
    expect(packaged).toEqual({
      modelDataUrl: PACKAGED_MODEL_URI,
      modelPrefixUri: `${RUN_PREFIX}model/files/`,
      reused: true,
    });
    const files = [...store.objects.keys()].filter((uri) => uri.startsWith(`${RUN_PREFIX}model/files/`));
    expect(files.sort()).toEqual([
      `${RUN_PREFIX}model/files/config.json`,
      `${RUN_PREFIX}model/files/weights/part-1.safetensors`,
    ]);
    expect(
      new TextDecoder().decode(await store.getBytes(`${RUN_PREFIX}model/files/weights/part-1.safetensors`)),
    ).toBe('w1');
  });

  it('writes the files once: a retry over the same archive finds them by its checksum', async () => {
    // Prepare
    const archive = await archiveOf({ 'config.json': '{}' });
    const store = new MemoryObjectStore().seed(PACKAGED_MODEL_URI, archive);
    await packageModel(optimizingEvent(), { store, logger: silentLogger });
    await store.putBytes(`${RUN_PREFIX}model/files/config.json`, new TextEncoder().encode('kept'));

    // Act
    const again = await packageModel(optimizingEvent(), { store, logger: silentLogger });

    // Assert
    expect(again.modelPrefixUri).toBe(`${RUN_PREFIX}model/files/`);
    expect(new TextDecoder().decode(await store.getBytes(`${RUN_PREFIX}model/files/config.json`))).toBe(
      'kept',
    );
  });

  it('unpacks nothing for a run without optimizations', async () => {
    // Prepare
    const archive = await archiveOf({ 'config.json': '{}' });
    const store = new MemoryObjectStore().seed(PACKAGED_MODEL_URI, archive);
    const plain = optimizingEvent();

    // Act
    const packaged = await packageModel(
      { plan: { ...plain.plan, compilations: [] } },
      { store, logger: silentLogger },
    );

    // Assert
    expect(packaged).toEqual({ modelDataUrl: PACKAGED_MODEL_URI, reused: true });
    expect([...store.objects.keys()]).toEqual([PACKAGED_MODEL_URI]);
  });
});
