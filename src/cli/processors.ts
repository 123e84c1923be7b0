/**
 * `evalkit processors list | get | create | update | publish | versions | diff`: processors (on
 * 2026-02-09: extractors, classifiers and splitters) and their versions without curl. Parses
 * flags, calls src/processors, renders.
 */
import type { Argv } from 'yargs';
import { kindOfType, typeOfId, type ProcessorType } from '../api/index.js';
import type { ConfigChange, ProcessorJson, VersionJson } from '../processors/index.js';
import { listSubcommands, defineCommand } from './command.js';
import { allowUnknownOption, escapeControls, formatOption, out as print, outJson } from './io.js';

const TYPES = ['EXTRACT', 'CLASSIFY', 'SPLITTER'] as const;

/** A 2026-02-09 service refuses members it does not know: the flag is refused there before any request. */
const processorsAllowUnknown = { ...allowUnknownOption, describe: `${allowUnknownOption.describe} (API 2025-04-21 and older: a 2026-02-09 service refuses them, so it is refused there)` };

interface Common {
  format: 'text' | 'json';
}
interface ListArgs extends Common {
  type?: ProcessorType;
}
interface IdArgs extends Common {
  id: string;
  type?: ProcessorType;
}
interface CreateArgs extends Common {
  name: string;
  type?: ProcessorType;
  config?: string;
  allowUnknown: boolean;
}
interface UpdateArgs extends IdArgs {
  config?: string;
  name?: string;
  allowUnknown: boolean;
}
interface PublishArgs extends IdArgs {
  release: 'major' | 'minor';
  description?: string;
}
interface DiffArgs extends IdArgs {
  v1: string;
  v2: string;
  exitCode: boolean;
}

/**
 * A text line: names, descriptions and configs come from the service (anyone with a token may
 * have set them) and file names from the user, so control characters are shown (`\x1b`), never
 * sent to the terminal. `--format json` is left as it is.
 */
function out(line: string): void {
  print(escapeControls(line));
}

async function core() {
  const [{ clientFromEnv }, processors] = await Promise.all([import('../api/index.js'), import('../processors/index.js')]);
  return { client: clientFromEnv(), processors };
}

/** Columns padded to the cells as shown (control characters escaped first, so `\x1b` counts 4). */
function table(head: string[], raw: string[][]): string {
  const rows = raw.map((r) => r.map(escapeControls));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

/** The versions as a table: when each was last updated (2025-04-21), or created (2026-02-09 versions carry no updatedAt). */
function versionTable(versions: readonly VersionJson[]): string {
  const updated = versions.some((v) => v.updatedAt !== undefined && v.updatedAt !== null);
  return table(['version', 'id', updated ? 'updated' : 'created', 'description'], versions.map((v) => [v.version, v.id, String((updated ? v.updatedAt : v.createdAt) ?? ''), v.description ?? '']));
}

/** What the API version in effect calls it: processor (2025-04-21), extractor, classifier or splitter. */
function noun(p: ProcessorJson): string {
  return p.object === 'extractor' || p.object === 'classifier' || p.object === 'splitter' ? p.object : 'processor';
}

/** The noun of an id: `ex_` extractor, `cl_` classifier, `spl_` splitter, else processor (`dp_`). */
/** What to call the thing an id names: its kind by its prefix (src/api/ids.ts), else "processor" (dp_ ids). */
function nounOfId(id: string): string {
  const type = typeOfId(id);
  return type ? kindOfType(type) : 'processor';
}

function sourceLine(c: ConfigChange): string {
  const s = c.source;
  if (!s) return '';
  if (!s.patch.length) return `; config from ${s.file}`;
  const changes = `${s.patch.length} change${s.patch.length === 1 ? '' : 's'}`;
  // `to` is the layout sent (2024-11-14 on API versions older than 2025-04-21).
  return s.from === s.to ? `; config from ${s.file} (sent in the ${s.to} layout, ${changes})` : `; config from ${s.file} (migrated ${s.from ?? 'any of the layouts its keys fit'} -> ${s.to}, ${changes})`;
}

const idPositional = (y: Argv): Argv =>
  y
    .positional('id', { type: 'string', demandOption: true, describe: 'the processor id (dp_...; on 2026-02-09 also ex_..., cl_..., spl_...)' })
    .option('type', { choices: TYPES, describe: 'on 2026-02-09: the kind (EXTRACT: extractor, CLASSIFY: classifier, SPLITTER: splitter) when the id does not tell it (default: looked up)' });

const list = defineCommand<ListArgs>({
  command: 'list',
  describe: 'list the processors this token can see (2026-02-09: extractors, classifiers and splitters), the last changed first',
  builder: (y) =>
    y
      .option('type', { choices: TYPES, describe: 'only processors of this type (2026-02-09: only extractors, classifiers or splitters)' })
      .option('format', formatOption)
      .example('$0 processors list', 'id, name, type and last change of each processor, the last changed first')
      .example('$0 processors list --type CLASSIFY --format json', 'machine-readable') as unknown as Argv<ListArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const all = await processors.listProcessors(client, { type: a.type });
    if (a.format === 'json') outJson({ processors: all });
    else if (all.length === 0) out('no processors');
    else out(table(['id', 'name', 'type', 'updated'], all.map((p) => [p.id, p.name, p.type, String(p.updatedAt)])));
    return 0;
  },
});

const get = defineCommand<IdArgs>({
  command: 'get <id>',
  describe: "a processor: its name, type, versions and the draft's config (in the layout of the API version in effect)",
  builder: (y) =>
    idPositional(y)
      .option('format', formatOption)
      .example('$0 processors get ex_123', 'name, type, versions, draft config')
      .example("$0 processors get ex_123 --format json | jq '.versions[0].config' > draft.json", 'save the draft config') as unknown as Argv<IdArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const d = await processors.getProcessor(client, a.id, undefined, a.type);
    if (a.format === 'json') {
      outJson(d);
      return 0;
    }
    const p = d.processor;
    out(`${noun(p)} ${p.id} "${p.name}" (${p.type}), created ${String(p.createdAt)}, updated ${String(p.updatedAt)}`);
    out('');
    out(versionTable(d.versions));
    const draft = d.versions.find((v) => v.version === 'draft');
    if (draft) {
      out('');
      out(`draft config (${processors.checkedLayout(client.options.apiVersion)}):`);
      out(JSON.stringify(draft.config, null, 2));
    }
    return 0;
  },
});


const create = defineCommand<CreateArgs>({
  command: 'create',
  describe: 'create a processor (2026-02-09: an extractor, classifier or splitter), its draft from a config file (any layout; migrated to the API version\'s layout and checked first)',
  builder: (y) =>
    y
      .option('name', { type: 'string', demandOption: true, describe: 'the processor name' })
      .option('type', { choices: TYPES, describe: "processor type (default: the config's; needed without --config)" })
      .option('config', { type: 'string', describe: 'JSON file: a config in any layout, or a saved processor, version or request body holding one (default: the service\'s defaults)' })
      .option('allow-unknown', processorsAllowUnknown)
      .option('format', formatOption)
      .example('$0 processors create --name invoices --type EXTRACT --config invoice.json', 'create it; prints the new id')
      .example('$0 processors create --name docs --type CLASSIFY --config old-layout.json --format json', 'a 2024-11-14 config is migrated on the way in') as unknown as Argv<CreateArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const r = await processors.createProcessor(client, { name: a.name, type: a.type, configFile: a.config, allowUnknown: a.allowUnknown });
    if (a.format === 'json') outJson(r);
    else if (r.existed) out(`${noun(r.processor)} ${r.processor.id} "${r.processor.name}" (${r.processor.type}) exists already with this config; nothing created`);
    else out(`${noun(r.processor)} ${r.processor.id} "${r.processor.name}" (${r.processor.type}) created${r.answerLost ? ` (its answer was lost; found in the ${noun(r.processor)} list)` : ''}${sourceLine(r)}`);
    return 0;
  },
});

const update = defineCommand<UpdateArgs>({
  command: 'update <id>',
  describe: "replace the draft's config from a file (any layout), and/or rename the processor",
  builder: (y) =>
    idPositional(y)
      .option('config', { type: 'string', describe: "JSON file with the draft's new config (any layout; a saved processor, version or request body works too)" })
      .option('name', { type: 'string', describe: 'a new name' })
      .option('allow-unknown', processorsAllowUnknown)
      .option('format', formatOption)
      .example('$0 processors update ex_123 --config invoice.json', "the draft's config becomes the file's")
      .example('$0 processors update ex_123 --name "invoices v2"', 'rename') as unknown as Argv<UpdateArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const r = await processors.updateProcessor(client, a.id, { configFile: a.config, name: a.name, type: a.type, allowUnknown: a.allowUnknown });
    if (a.format === 'json') outJson(r);
    else out(`${noun(r.processor)} ${r.processor.id} "${r.processor.name}": ${a.config !== undefined ? 'draft updated' : 'renamed'}${sourceLine(r)}`);
    return 0;
  },
});

const publish = defineCommand<PublishArgs>({
  command: 'publish <id>',
  describe: "publish the draft as a new version: major (2.0) or minor (1.1)",
  builder: (y) =>
    idPositional(y)
      .option('release', { choices: ['major', 'minor'] as const, demandOption: true, describe: 'which number to increment' })
      .option('description', { type: 'string', describe: 'what changed in this version' })
      .option('format', formatOption)
      .example('$0 processors publish ex_123 --release major --description "first release"', 'publishes 1.0 (or the next major)')
      .example('$0 processors publish ex_123 --release minor --format json', 'the new version as JSON') as unknown as Argv<PublishArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const { alreadyPublished, answerLost, ...v } = await processors.publishProcessor(client, a.id, { releaseType: a.release, description: a.description, type: a.type });
    if (a.format === 'json') outJson({ version: v, published: !alreadyPublished, ...(answerLost ? { answerLost } : {}) });
    else if (alreadyPublished) out(`${nounOfId(a.id)} ${a.id}: ${v.version} (${v.id}) already holds the draft's config; nothing published`);
    else out(`${nounOfId(a.id)} ${a.id}: published ${v.version} (${v.id})${v.description ? `: ${v.description}` : ''}${answerLost ? ' (its answer was lost; found in the version list)' : ''}`);
    return 0;
  },
});

const versions = defineCommand<IdArgs>({
  command: 'versions <id>',
  describe: "a processor's versions: the draft, then published ones newest first",
  builder: (y) =>
    idPositional(y)
      .option('format', formatOption)
      .example('$0 processors versions ex_123', 'version, id, last change, description')
      .example('$0 processors versions ex_123 --format json', 'with each config (in the layout of the API version in effect)') as unknown as Argv<IdArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const vs = await processors.listVersions(client, a.id, undefined, a.type);
    if (a.format === 'json') outJson({ processorId: a.id, versions: vs });
    else out(versionTable(vs));
    return 0;
  },
});

const diff = defineCommand<DiffArgs>({
  command: 'diff <id> <v1> <v2>',
  describe: 'what changed in the config from version V1 to V2 (draft, latest, 1.0, or a version id): readable lines, or RFC 6902 with --format json',
  builder: (y) =>
    idPositional(y)
      .positional('v1', { type: 'string', demandOption: true, describe: 'the version to compare from' })
      .positional('v2', { type: 'string', demandOption: true, describe: 'the version to compare to' })
      .option('exit-code', { type: 'boolean', default: false, describe: 'exit 1 when the configs differ (as git diff --exit-code)' })
      .option('format', { ...formatOption, describe: 'human lines, or JSON: {from, to, patch (RFC 6902), summary}' })
      .example('$0 processors diff ex_123 1.0 draft', 'what the draft changes since 1.0')
      .example("$0 processors diff ex_123 latest draft --format json | jq .patch", 'the RFC 6902 patch')
      .example('$0 processors diff ex_123 1.0 1.1 --exit-code', 'exit 1 when they differ (CI)') as unknown as Argv<DiffArgs>,
  run: async (a) => {
    const { client, processors } = await core();
    const d = await processors.diffVersions(client, a.id, String(a.v1), String(a.v2), undefined, a.type);
    if (a.format === 'json') outJson(d);
    else {
      out(`${nounOfId(d.processorId)} ${d.processorId}: ${d.from.version} (${d.from.id}) -> ${d.to.version} (${d.to.id}): ${d.patch.length === 0 ? 'same config' : `${d.patch.length} change${d.patch.length === 1 ? '' : 's'}`}`);
      for (const l of d.summary) out(`  ${l}`);
    }
    return a.exitCode && d.patch.length > 0 ? 1 : 0;
  },
});

export default defineCommand<{ command?: string }>({
  command: 'processors [command]',
  describe: 'processors and their versions: list, get, create, update the draft, publish, versions, diff',
  builder: (y) =>
    y
      .example('$0 processors create --name invoices --type EXTRACT --config invoice.json', 'create from a saved config (any layout)')
      .example('$0 processors publish ex_123 --release major', 'publish the draft as 1.0')
      .example('$0 processors diff ex_123 1.0 draft', 'what the draft changes')
      .example('$0 processors list --api-version 2025-04-21', 'every processor (/processors, API 2025-04-21)') as unknown as Argv<{ command?: string }>,
  subcommands: [list, get, create, update, publish, versions, diff],
  // yargs runs a subcommand's handler; this one runs for none (a list) or an unknown one.
  run: async (argv) => listSubcommands('processors', argv.command, [list, get, create, update, publish, versions, diff]),
});
