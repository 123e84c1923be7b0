// The step every generator of this folder ends with: a generated file written when it differs,
// or, with --check, left alone and named as stale (exit code 1) so that a test can fail on it.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function writeGenerated(root, out, want, check, command) {
  const file = path.join(root, out);
  const have = await readFile(file, 'utf8').catch(() => null);
  if (have === want) return;
  if (check) {
    console.error(`${out} is stale: run ${command}`);
    process.exitCode = 1;
    return;
  }
  await writeFile(file, want);
  console.error(`wrote ${out}`);
}
