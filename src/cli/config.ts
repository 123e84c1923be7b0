/**
 * `evalkit config show`: the settings a command would get, each with where it came from
 * (flag, environment, config file, default). Reads the same file the commands read.
 */
import { createRequire } from 'node:module';
import type { Argv } from 'yargs';
import type yargsFactory from 'yargs';
import type { DatasetSettings } from '../settings/load.js';
import { listSubcommands, defineCommand } from './command.js';
import { redactUrl } from '../util/secrets.js';
import { formatOption, out, outJson } from './io.js';
import { kebab, loadForCommand, OPTION_MAP, optionValue, type OptionMapping } from './settings.js';

type Source = 'flag' | 'environment' | 'config' | 'default' | 'unset';

export interface ShownValue {
  value: unknown;
  source: Source;
  /** The flag, variable or file the value came from. */
  from?: string;
  /** The options it fills: `report --from`. */
  fills?: string[];
}

export interface ShownSettings {
  file: string | null;
  dataset: string | null;
  datasets: string[];
  settings: Record<string, ShownValue>;
}

type ShowArgs = Record<string, unknown> & { format: 'text' | 'json' };

const NUMBER_KEYS = new Set<keyof DatasetSettings>(['fuzzyThreshold', 'numberTolerance', 'targetAccuracy']);
const ARRAY_KEYS = new Set<keyof DatasetSettings>(['formats', 'fuzzyFields', 'excludeFields', 'gates', 'slices']);

/** The options of config show that stand for the commands' own (see showOptions). */
function overrideOptions(): Map<string, OptionMapping> {
  const byOption = new Map<string, OptionMapping>();
  // `format` is config show's own output format; report's file formats cannot be overridden here.
  for (const m of OPTION_MAP) if (m.option !== 'format' && !byOption.has(m.option)) byOption.set(m.option, m);
  return byOption;
}

function showOptions(y: Argv): Argv {
  let b = y;
  for (const [option, m] of overrideOptions()) {
    const type = NUMBER_KEYS.has(m.key) ? { type: 'number' as const } : ARRAY_KEYS.has(m.key) ? { type: 'string' as const, array: true } : { type: 'string' as const };
    const where = OPTION_MAP.filter((x) => x.option === option).map((x) => (x.option === 'csv' ? `${x.command}'s CSV argument` : x.command));
    b = b.option(kebab(option), { ...type, group: 'As the commands take them (to see a flag override the file):', describe: `config key ${m.key}: ${[...new Set(where)].join(', ')}` });
  }
  return b;
}

const require = createRequire(import.meta.url);

/** What a command's own options default to, from its yargs builder (the one source of the defaults). */
async function defaultsOf(command: string): Promise<Record<string, unknown>> {
  const { loadCommands } = await import('./commands.js');
  const [top, sub] = command.split(' ');
  const commands = await loadCommands([top]);
  const name = (c: { command: string | readonly string[] }): string => String(Array.isArray(c.command) ? c.command[0] : c.command).split(' ')[0];
  const cmd = commands.find((c) => name(c) === top);
  const target = sub ? cmd?.subcommands?.find((s) => name(s) === sub) : cmd;
  if (!target) return {};
  try {
    const y = (require('yargs/yargs') as typeof yargsFactory)([]);
    target.builder(y);
    return (y as unknown as { getOptions(): { default: Record<string, unknown> } }).getOptions().default;
  } catch {
    return {};
  }
}

const nonEmpty = (v: string | undefined): string | undefined => (v === undefined || v.trim() === '' ? undefined : v.trim());

export async function showSettings(argv: Record<string, unknown>): Promise<ShownSettings> {
  const { loaded, picked } = await loadForCommand(argv);
  const { DEFAULT_API_VERSION } = await import('../api/index.js');
  const settings: Record<string, ShownValue> = {};
  const file = loaded?.file;

  const service = (key: 'baseUrl' | 'apiVersion' | 'workspaceId', env: string, flag: string | undefined, dflt: string | undefined): ShownValue => {
    if (flag !== undefined && typeof argv[key] === 'string') return { value: argv[key], source: 'flag', from: flag };
    const e = nonEmpty(process.env[env]);
    if (e !== undefined) return { value: e, source: 'environment', from: env };
    const c = loaded?.config[key];
    if (c !== undefined) return { value: c, source: 'config', from: file };
    return dflt !== undefined ? { value: dflt, source: 'default' } : { value: null, source: 'unset' };
  };
  settings.baseUrl = service('baseUrl', 'EVALKIT_BASE_URL', '--base-url', undefined);
  // A password, query or fragment in the address (the environment's or a flag's; the config file's is refused) is never shown, nor a value that is no URL.
  if (typeof settings.baseUrl.value === 'string') settings.baseUrl.value = redactUrl(settings.baseUrl.value);
  settings.apiVersion = service('apiVersion', 'EVALKIT_API_VERSION', '--api-version', DEFAULT_API_VERSION);
  settings.workspaceId = service('workspaceId', 'EVALKIT_WORKSPACE_ID', '--workspace-id', undefined);
  // Whether it is set, never what it is.
  settings.apiToken = nonEmpty(process.env.EVALKIT_API_TOKEN) !== undefined ? { value: '(set)', source: 'environment', from: 'EVALKIT_API_TOKEN' } : { value: null, source: 'unset' };

  const keys = [...new Set(OPTION_MAP.map((m) => m.key))];
  const overrides = overrideOptions();
  const defaults = new Map<string, Record<string, unknown>>();
  for (const key of keys) {
    const maps = OPTION_MAP.filter((m) => m.key === key);
    const fills = maps.map((m) => `${m.command} --${kebab(m.option)}`);
    const flagged = maps.find((m) => overrides.has(m.option) && argv[m.option] !== undefined);
    if (flagged) {
      settings[key] = { value: argv[flagged.option], source: 'flag', from: `--${kebab(flagged.option)}`, fills };
      continue;
    }
    const v = picked?.settings[key];
    if (v !== undefined && loaded) {
      settings[key] = { value: optionValue(maps[0], v, loaded), source: 'config', from: file, fills };
      continue;
    }
    let dflt: unknown;
    for (const m of maps) {
      if (!defaults.has(m.command)) defaults.set(m.command, await defaultsOf(m.command));
      const d = defaults.get(m.command)!;
      dflt = d[kebab(m.option)] ?? d[m.option];
      if (dflt !== undefined) break;
    }
    settings[key] = dflt !== undefined ? { value: dflt, source: 'default', fills } : { value: null, source: 'unset', fills };
  }
  return { file: file ?? null, dataset: picked?.name ?? null, datasets: loaded ? Object.keys(loaded.config.datasets ?? {}) : [], settings };
}

function label(v: ShownValue): string {
  switch (v.source) {
    case 'flag':
      return `flag ${v.from}`;
    case 'environment':
      return `environment ${v.from}`;
    case 'config':
      return `config file ${v.from}`;
    default:
      return v.source;
  }
}

const show = (v: unknown): string => (v === null || v === undefined ? '-' : Array.isArray(v) ? (v.length ? v.join(', ') : '[]') : String(v));

function renderText(s: ShownSettings): string {
  const lines: string[] = [];
  if (s.file === null) lines.push('config file: none (no evalkit.config.json here or in a folder above; evalkit init writes one)');
  else lines.push(`config file: ${s.file}${s.dataset ? ` (dataset ${s.dataset})` : s.datasets.length > 1 ? ` (datasets ${s.datasets.join(', ')}: pass --dataset NAME to see one)` : ''}`);
  const rows = Object.entries(s.settings).map(([k, v]) => [k, show(v.value), label(v)]);
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.min(48, Math.max(...rows.map((r) => r[1].length)));
  for (const [k, v, src] of rows) lines.push(`${k.padEnd(w0)}  ${v.padEnd(w1)}  ${src}`);
  return lines.join('\n');
}

const showCmd = defineCommand<ShowArgs>({
  command: 'show',
  describe: 'the merged settings (flag > environment > config file > default) and where each comes from',
  builder: (y) =>
    showOptions(y.option('format', { ...formatOption, describe: 'human table, or JSON: {file, dataset, datasets, settings: {KEY: {value, source, from, fills}}}' }))
      .example('$0 config show', 'what the nearest evalkit.config.json sets, and what it leaves to defaults')
      .example('$0 config show --dataset invoices --format json', 'one dataset of several, machine-readable')
      .example('$0 config show --config-file ci/evalkit.config.json --fuzzy-threshold 0.8', 'see a flag override the file') as unknown as Argv<ShowArgs>,
  run: async (argv) => {
    const shown = await showSettings(argv);
    if (argv.format === 'json') outJson(shown);
    else out(renderText(shown));
    return 0;
  },
});

export default defineCommand<{ command?: string }>({
  command: 'config [command]',
  describe: 'the settings file evalkit.config.json: show what applies and where it comes from (evalkit init writes one)',
  builder: (y) =>
    y
      .example('$0 config show', 'merged settings with their sources') as unknown as Argv<{ command?: string }>,
  subcommands: [showCmd],
  // yargs runs a subcommand's handler; this one runs for none (a list) or an unknown one.
  run: async (argv) => listSubcommands('config', argv.command, [showCmd]),
});
