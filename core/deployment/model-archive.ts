import { lstat, mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create as createTar, extract as extractTar, ReadEntry } from 'tar';
import { unsafeEntryReason } from './archive-entries.js';
import { InvalidRunInputError } from '../contracts/index.js';

/**
 * The model.tar.gz builder "Package model" uses, shared with "Validate async run" (a Hub model's
 * inference code), the local compiler and the local examples: a step module imports no other.
 */

/** A fixed modification time makes the archive, and so its checksum, depend on the content only. */
const FIXED_MTIME = new Date('2020-01-01T00:00:00Z');

export interface ModelArchiveParts {
  /**
   * A model file placed at the root, or a packaged `.tar.gz` whose contents go to the root; absent for
   * a Hugging Face Hub model, whose archive holds its inference code only.
   */
  readonly modelFileName?: string;
  readonly modelBytes?: Uint8Array;
  /**
   * One `.py` file, added to `code/` (beside what the model archive's own `code/` holds), or a
   * `.tar.gz` of a code folder, which becomes `code/` (replacing the model archive's own).
   */
  readonly code?: {
    readonly fileName: string;
    readonly bytes: Uint8Array;
    /** The input field that names the code, in errors. @default 'model.inferenceCodeUri' */
    readonly field?: string;
  };
}

/** A packaged model or code folder, by its name: such a part is unpacked, not placed as one file. */
const ARCHIVE_NAME = /\.(tar\.gz|tgz)$/;

/**
 * Builds a deterministic `model.tar.gz` (entries sorted by path, fixed times, no owners) with the model at
 * its root. SageMaker untars `ModelDataUrl` once into `/opt/ml/model` (SageMaker API Reference,
 * S3ModelDataSource: a Gzip `S3Object` is decompressed and untarred), and Neo reads the model files
 * from the root of its input archive (SageMaker developer guide, "Prepare Model for Compilation"):
 * a packaged model given with inference code is therefore unpacked and repacked, never nested. The
 * `code/` rules follow the SageMaker Python SDK's repack (`_create_or_update_code_dir` in
 * aws/sagemaker-python-sdk src/sagemaker/utils.py): a code folder replaces `code/`, a single script
 * is added to it. Parts are written to and read from a temporary folder, entry by entry.
 */
export async function buildModelArchive(parts: ModelArchiveParts): Promise<Uint8Array> {
  const workDir = await mkdtemp(join(tmpdir(), 'mso-package-'));
  try {
    const root = join(workDir, 'root');
    await mkdir(root);
    const { modelFileName, modelBytes } = parts;
    if (modelFileName !== undefined && modelBytes !== undefined && ARCHIVE_NAME.test(modelFileName)) {
      const modelArchive = join(workDir, 'model-input.tar.gz');
      await writeFile(modelArchive, modelBytes);
      await extractInside(modelArchive, root, 'model.artifactUri', modelFileName);
    } else if (modelFileName !== undefined && modelBytes !== undefined) {
      await writeFile(join(root, modelFileName), modelBytes);
    }
    if (parts.code !== undefined) await addCode(root, workDir, parts.code);
    const archivePath = join(workDir, 'model.tar.gz');
    await createTar(
      {
        file: archivePath,
        cwd: root,
        gzip: { level: 6 },
        portable: true,
        mtime: FIXED_MTIME,
        // The walk below lists every entry in order; tar's own recursion interleaves folders.
        noDirRecurse: true,
      },
      await sortedEntries(root),
    );
    return new Uint8Array(await readFile(archivePath));
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** One file of an unpacked model archive: its path relative to the archive root, `/`-separated. */
export interface ModelArchiveFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/**
 * The files of a `model.tar.gz`, as SageMaker would extract them into `/opt/ml/model` (folders and
 * links left out; a link inside the archive is read as the file it names). The archive is checked
 * as the packaging checks it: an entry that would leave the folder refuses it on `field`.
 */
export async function unpackModelArchive(
  archive: Uint8Array,
  field: string,
  fileName: string,
): Promise<ModelArchiveFile[]> {
  const workDir = await mkdtemp(join(tmpdir(), 'mso-unpack-'));
  try {
    const root = join(workDir, 'root');
    await mkdir(root);
    const archivePath = join(workDir, 'model.tar.gz');
    await writeFile(archivePath, archive);
    await extractInside(archivePath, root, field, fileName);
    const files: ModelArchiveFile[] = [];
    for (const path of await sortedEntries(root)) {
      const entry = await lstat(join(root, path));
      if (entry.isDirectory()) continue;
      files.push({ path, bytes: new Uint8Array(await readFile(join(root, path))) });
    }
    return files;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Every path under `root` (relative, `/`-separated), each folder before its contents, by name. */
async function sortedEntries(root: string, prefix = ''): Promise<string[]> {
  const children = await readdir(join(root, prefix), { withFileTypes: true });
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const paths: string[] = [];
  for (const child of children) {
    const path = prefix === '' ? child.name : `${prefix}/${child.name}`;
    paths.push(path);
    // A symbolic link to a folder is an entry of its own: not followed.
    if (child.isDirectory()) paths.push(...(await sortedEntries(root, path)));
  }
  return paths;
}

async function addCode(
  root: string,
  workDir: string,
  code: NonNullable<ModelArchiveParts['code']>,
): Promise<void> {
  const codeDir = join(root, 'code');
  if (ARCHIVE_NAME.test(code.fileName)) {
    await rm(codeDir, { recursive: true, force: true });
    await mkdir(codeDir);
    const codeArchive = join(workDir, 'code.tar.gz');
    await writeFile(codeArchive, code.bytes);
    await extractInside(codeArchive, codeDir, code.field ?? 'model.inferenceCodeUri', code.fileName);
    return;
  }
  const existing = await lstat(codeDir).catch(() => undefined);
  if (existing !== undefined && !existing.isDirectory()) {
    throw new InvalidRunInputError([
      {
        field: 'model.artifactUri',
        given: 'a model archive whose "code" entry is not a folder',
        expected: `a "code" folder (or none), where ${code.fileName} from model.inferenceCodeUri is placed`,
      },
    ]);
  }
  await mkdir(codeDir, { recursive: true });
  await writeFile(join(codeDir, code.fileName), code.bytes);
}

/** At most this many unsafe entries are named in the error; the count says how many there were. */
const NAMED_UNSAFE_ENTRIES = 5;

/**
 * Extracts a user's archive into `directory`, refusing it (InvalidRunInputError on `field`) when
 * an entry would leave the folder: an absolute path, a ".." segment, a link pointing outside, or
 * something other than a file, folder or link. Unsafe entries are filtered out before anything is
 * written, so none lands outside even on the way to the refusal.
 */
async function extractInside(
  file: string,
  directory: string,
  field: string,
  fileName: string,
): Promise<void> {
  const unsafe: string[] = [];
  try {
    await extractTar({
      file,
      cwd: directory,
      strict: true,
      filter: (path, entry) => {
        const reason = entry instanceof ReadEntry ? unsafeEntryReason(entry) : undefined;
        if (reason !== undefined) unsafe.push(`${JSON.stringify(path)} (${reason})`);
        return reason === undefined;
      },
    });
  } catch (error) {
    // tar's (TAR_…) and zlib's (Z_…) codes say the archive is bad; anything else (a full disk) is ours.
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !/^(TAR|Z)_/.test(code)) throw error;
    throw new InvalidRunInputError([
      {
        field,
        given: `${fileName}, which could not be read as a .tar.gz (${error instanceof Error ? error.message : String(error)})`,
        expected: 'a gzip-compressed tar archive',
      },
    ]);
  }
  if (unsafe.length > 0) {
    const named = unsafe.slice(0, NAMED_UNSAFE_ENTRIES).join(', ');
    const more =
      unsafe.length > NAMED_UNSAFE_ENTRIES ? ` and ${unsafe.length - NAMED_UNSAFE_ENTRIES} more` : '';
    throw new InvalidRunInputError([
      {
        field,
        given: `${fileName} with ${unsafe.length === 1 ? 'an unsafe entry' : 'unsafe entries'}: ${named}${more}`,
        expected:
          'entries with relative paths inside the archive and links that stay inside it: ' +
          'rebuild it from the model folder (e.g. tar -czf model.tar.gz -C model-folder .)',
      },
    ]);
  }
}
