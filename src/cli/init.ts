/**
 * `evalkit init`: scaffolds evalkit.config.json, a CSV header for the processor's fields (one
 * example row) and the CI workflow, from a processor on the service or a saved config file; and
 * that config as configs/<dataset>.json when it is not a file in the repository already (the
 * workflow evaluates the config file of each pull request). Writes nothing when a target exists,
 * unless --force.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argv } from 'yargs';
import type { ProcessorType } from '../api/index.js';
import { DEFAULT_API_VERSION } from '../api/version.js';
import { InputError, UsageError } from '../util/errors.js';
import { defineCommand } from './command.js';
import { formatOption, out, outJson } from './io.js';

interface InitArgs {
  processor?: string;
  config?: string;
  type?: ProcessorType;
  evaluationSet?: string;
  csv: string;
  dir: string;
  force: boolean;
  dataset?: string;
  baseUrl?: string;
  format: 'text' | 'json';
}

const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `$schema` for editors: the schema of this evalkit when it is installed under DIR, else where npm installs it. */
function schemaRef(dir: string): string {
  const rel = path.relative(dir, path.join(PACKAGE_ROOT, 'schemas/evalkit-config.schema.json'));
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return `./${rel.split(path.sep).join('/')}`;
  return './node_modules/evalkit/schemas/evalkit-config.schema.json';
}

const DATASET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

export default defineCommand<InitArgs>({
  command: 'init',
  describe: 'scaffold evalkit.config.json, a CSV header for the processor\'s fields and the CI workflow (which evaluates each pull request\'s processor config file), from a processor id or a saved config file',
  builder: (y) =>
    y
      .option('processor', { alias: 'p', type: 'string', describe: 'the processor (ex_..., cl_..., spl_...; dp_... on 2025-04-21), read through the service (EVALKIT_BASE_URL, EVALKIT_API_TOKEN): its draft config, as `dataset upload` checks rows against it' })
      .option('config', { type: 'string', describe: 'or a saved processor config file: a bare config in any layout (2024-11-14, 2025-04-21 or 2026-02-09), or a processor, version or request body holding one' })
      .option('type', { choices: ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const, describe: 'with --config: the processor type, when the file does not say' })
      .option('evaluation-set', { alias: 'e', type: 'string', describe: 'the evaluation set id to put in the config (add it later if the set does not exist yet)' })
      .option('csv', { type: 'string', default: 'data.csv', describe: 'name of the CSV to write, relative to --dir' })
      .option('dir', { type: 'string', default: '.', describe: 'the folder to write in: the repository root (the workflow goes to DIR/.github/workflows/)' })
      .option('force', { type: 'boolean', default: false, describe: 'replace files that exist (without it, nothing is written when one does)' })
      .option('format', formatOption)
      .conflicts('processor', 'config')
      .example('$0 init --processor ex_123 --evaluation-set ev_456', 'from the processor on the service: evalkit.config.json, data.csv, .github/workflows/evalkit.yml')
      .example('$0 init --config invoice.config.json --dataset invoices', 'offline, from a saved config in any layout; the dataset section is named invoices')
      .example('$0 init -p ex_123 --force', 'replace the files init wrote before')
      .epilogue('The token is never written: the workflow reads the secret EVALKIT_API_TOKEN. The base URL (--base-url or EVALKIT_BASE_URL) goes into the config file when set, unless it is a loopback or sandbox address (then the workflow reads the repository variable EVALKIT_BASE_URL). The workflow evaluates the processor config file of each pull request: --config FILE when it is inside --dir, else configs/<dataset>.json, written from the config read. --dataset names the section (default: from the processor or file name).') as unknown as Argv<InitArgs>,
  run: async (argv) => {
    if ((argv.processor === undefined) === (argv.config === undefined)) {
      throw new UsageError('say what to scaffold from: --processor ID or --config FILE', { hint: 'for example: evalkit init --processor ex_123, or evalkit init --config invoice.config.json' });
    }
    if (argv.type !== undefined && argv.config === undefined) throw new UsageError('--type goes with --config', { hint: "a processor on the service names its own type" });
    if (argv.csv.trim() === '' || path.isAbsolute(argv.csv) || argv.csv.split(/[\\/]/).includes('..')) {
      throw new UsageError(`--csv "${argv.csv}" must be a file name inside --dir`, { hint: 'for example --csv data.csv or --csv evaluation/data.csv' });
    }
    // The API version in effect (--api-version sets the variable; the config file's apiVersion fills
    // it when unset): the processor config is written in its layout, and the version pinned in the config file.
    const apiVersion = process.env.EVALKIT_API_VERSION?.trim() || DEFAULT_API_VERSION;
    let config: Record<string, unknown>;
    let type: ProcessorType;
    let name: string;
    let origin: string;
    if (argv.processor !== undefined) {
      const { clientFromEnv } = await import('../api/index.js');
      const { getProcessor } = await import('../processors/index.js');
      const { pickVersion } = await import('../eval/resolve.js');
      const details = await getProcessor(clientFromEnv(), argv.processor);
      const version = pickVersion(details.versions, 'draft') ?? pickVersion(details.versions, 'latest');
      if (!version) throw new InputError(`processor ${argv.processor} has no versions to read a config from`, { hint: 'give it a config: evalkit processors update ID --config FILE' });
      config = version.config as Record<string, unknown>;
      type = details.processor.type;
      name = details.processor.name;
      origin = `${argv.processor}@${version.version}`;
    } else {
      const { readProcessorConfig } = await import('../processors/index.js');
      const read = await readProcessorConfig(argv.config!, { type: argv.type, apiVersion }).catch(unknownKeyForInit);
      config = read.config;
      type = read.type;
      name = nameOfFile(argv.config!);
      origin = argv.config!;
    }
    const { baseUrlToCommit, datasetNameFrom, scaffold } = await import('../settings/scaffold.js');
    const dataset = argv.dataset ?? datasetNameFrom(name);
    if (!DATASET_NAME.test(dataset)) throw new UsageError(`--dataset "${dataset}": a dataset name starts with a letter or digit and holds only letters, digits, ".", "_" and "-"`);
    const dir = path.resolve(argv.dir);
    const given = argv.baseUrl ?? (process.env.EVALKIT_BASE_URL?.trim() || undefined);
    const { baseUrl, omitted } = baseUrlToCommit(given, process.env.EVALKIT_API_TOKEN?.trim());
    // A config file inside the repository is what the workflow evaluates; one outside it is copied in.
    const inRepo = argv.config !== undefined ? path.relative(dir, path.resolve(argv.config)) : undefined;
    const configFile = inRepo !== undefined && inRepo !== '' && !inRepo.startsWith('..') && !path.isAbsolute(inRepo) ? inRepo.split(path.sep).join('/') : undefined;
    let files;
    try {
      files = scaffold({ dataset, type, config, processorId: argv.processor, evaluationSet: argv.evaluationSet, baseUrl, apiVersion, schemaRef: schemaRef(dir), csv: argv.csv.split(path.sep).join('/'), configFile });
    } catch (e) {
      if (e instanceof InputError && e.location.file === undefined) throw new InputError(e.message, { location: { ...e.location, file: origin }, hint: e.hint });
      throw e;
    }

    const targets = files.map((f) => ({ ...f, path: path.join(dir, f.file) }));
    const existing: string[] = [];
    for (const t of targets) {
      const st = await fsp.stat(t.path).catch(() => undefined);
      if (st?.isDirectory()) throw new InputError('is a folder, not a file', { location: { file: t.path }, hint: 'move it away, or pass another --csv / --dir' });
      if (st) existing.push(t.path);
    }
    if (existing.length && !argv.force) {
      const rel = existing.map((f) => path.relative(process.cwd(), f) || f);
      throw new InputError(`exists${rel.length > 1 ? ` (so do ${rel.slice(1).join(', ')})` : ''}; nothing was written`, { location: { file: rel[0] }, hint: `pass --force to replace ${rel.length > 1 ? 'them' : 'it'}, or --dir / --csv to write elsewhere` });
    }
    // What a replaced evalkit.config.json held that the new one does not (an evaluation set id, gates
    // added by hand): said, so that --force does not drop it without a word.
    const settingsTarget = targets.find((t) => t.kind === 'config');
    const lost = settingsTarget && existing.includes(settingsTarget.path) ? await membersLost(settingsTarget.path, settingsTarget.text) : [];
    const { writeFileAtomic } = await import('../util/fs.js');
    for (const t of targets) await writeFileAtomic(t.path, t.text);
    const lostNote = lost.length ? `the replaced ${path.basename(settingsTarget!.path)} had other values for ${lost.join(', ')}: add ${lost.length > 1 ? 'them' : 'it'} back (or pass --evaluation-set / --processor) if still wanted` : undefined;

    const written = targets.map((t) => ({ kind: t.kind, file: path.relative(process.cwd(), t.path) || t.path, replaced: existing.includes(t.path) }));
    const evaluated = configFile ?? written.find((w) => w.kind === 'processor-config')?.file;
    const baseUrlNote = omitted ? `baseUrl not written: ${omitted}, which CI cannot reach; set the repository variable EVALKIT_BASE_URL (the workflow reads it), or add "baseUrl" to evalkit.config.json` : undefined;
    if (argv.format === 'json') {
      outJson({ dataset, type, processor: argv.processor ?? null, source: origin, files: written, evaluatedConfig: evaluated ?? null, baseUrl: baseUrl ?? null, notes: [baseUrlNote, lostNote].filter((n) => n !== undefined) });
      return 0;
    }
    const lines = written.map((w) => `${w.replaced ? 'replaced' : 'wrote'} ${w.file}`);
    lines.push(`dataset "${dataset}" (${type}, from ${origin})`);
    if (baseUrlNote) lines.push(baseUrlNote);
    if (lostNote) lines.push(lostNote);
    lines.push(`the workflow evaluates ${evaluated} as each pull request has it (eval run --config): change the processor config there, not in the draft on the service`);
    lines.push('next:');
    lines.push(`  fill ${written[1].file} with your documents (the example row names a file that does not exist)`);
    if (!argv.processor) lines.push(`  create the processor (evalkit processors create --name ${dataset} --type ${type} --config ${origin}) and add its id as "processor"`);
    if (!argv.evaluationSet) lines.push(`  upload the CSV (evalkit dataset upload --create-set ${dataset}${argv.processor ? '' : ' --processor ID'}) and add the set id as "evaluationSet"`);
    lines.push('  evalkit eval run && evalkit report   # both read the config; set gates under "gates"');
    lines.push('  commit the files; set the repository secret EVALKIT_API_TOKEN for the workflow');
    out(lines.join('\n'));
    return 0;
  },
});

/**
 * An unknown key in init's --config file: the refusal names `--allow-unknown`, which init does not
 * have (the workflow it writes evaluates the config with `eval run --config`, which refuses the key
 * too): fix the key, or, for a key of a service version newer than evalkit, upgrade evalkit.
 */
async function unknownKeyForInit(e: unknown): Promise<never> {
  const { UnknownKeysError, unknownKeyFix } = await import('../config/known-keys.js');
  const unknown = e instanceof InputError && e.cause instanceof UnknownKeysError ? e.cause : e instanceof UnknownKeysError ? e : undefined;
  if (!unknown || !(e instanceof InputError)) throw e;
  throw new InputError(e.message, {
    location: e.location,
    hint: `${unknownKeyFix(unknown.keys[0])} (init and the workflow it writes take the keys evalkit knows; for a key of a service version newer than evalkit, upgrade evalkit)`,
  });
}

/** A processor's name from its config file's: invoice.config.json -> invoice. */
function nameOfFile(file: string): string {
  return path.basename(file).replace(/(\.config)?\.jsonc?$/i, '');
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Members (top level, and in each dataset section: `/datasets/x/evaluationSet`) of the old config file whose value the new text lacks or changes. */
async function membersLost(file: string, next: string): Promise<string[]> {
  let before: unknown;
  try {
    before = JSON.parse(await fsp.readFile(file, 'utf8'));
  } catch {
    return []; // not JSON: nothing to compare
  }
  const after = JSON.parse(next) as Record<string, unknown>;
  const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
  const out: string[] = [];
  for (const key of Object.keys(obj(before))) {
    if (key === 'datasets' || key === '$schema') continue;
    if (!sameJson(obj(before)[key], after[key])) out.push(`"${key}"`);
  }
  const sections = obj(obj(before).datasets);
  const now = obj(after.datasets);
  for (const [name, section] of Object.entries(sections)) {
    if (!(name in now)) {
      out.push(`dataset "${name}"`);
      continue;
    }
    for (const key of Object.keys(obj(section))) {
      if (!sameJson(obj(section)[key], obj(now[name])[key])) out.push(`"${key}" of dataset "${name}"`);
    }
  }
  return out;
}
