/**
 * Writes the example model: `npx tsx local/example-model/main.ts <path> [seed]`.
 * Prints one JSON line with the path, size and signature.
 */
import { EXAMPLE_MODEL_SIGNATURE, writeExampleModel } from './example-model.js';

const [path, seedArgument] = process.argv.slice(2);
if (path === undefined) {
  process.stderr.write('Usage: npx tsx local/example-model/main.ts <output.onnx> [seed]\n');
  process.exit(2);
}
const seed = seedArgument === undefined ? undefined : Number(seedArgument);
if (seed !== undefined && !Number.isSafeInteger(seed)) {
  process.stderr.write(`Seed: got ${JSON.stringify(seedArgument)}, expected an integer\n`);
  process.exit(2);
}
const written = await writeExampleModel(path, seed === undefined ? {} : { seed });
process.stdout.write(`${JSON.stringify({ ...written, signature: EXAMPLE_MODEL_SIGNATURE })}\n`);
