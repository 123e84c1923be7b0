/**
 * evalkit.config.json on the command line: which option each member of a dataset section fills
 * (OPTION_MAP, the one table to edit when a flag is renamed), and the middleware that fills the
 * options the user did not pass. Precedence: flag > environment > config file > default.
 */
import path from 'node:path';
import type { Argv } from 'yargs';
import type { DatasetSettings, LoadedSettings, PickedDataset } from '../settings/load.js';
import { UsageError } from '../util/errors.js';

type Argvish = Record<string, unknown>;

/** One member of a dataset section and the option of one command it fills. */
export interface OptionMapping {
  key: keyof DatasetSettings;
  /** The command as typed: `report`, `eval run`, `dataset upload`. */
  command: string;
  /** The yargs option it fills: its camelCase key. */
  option: string;
  /** Only when the rest of the command line (the option's partners and conflicts) or the section allows it. */
  when?: (argv: Argvish, section?: DatasetSettings) => boolean;
  /** A path, relative to the config file's folder. */
  path?: true;
}

const noConfigFile = (a: Argvish): boolean => a.config === undefined;
const noCreateSet = (a: Argvish): boolean => a.createSet === undefined;
/** Slices by item metadata (not fileType or pageCount, which the export has): their values are the CSV's metadata.KEY columns. */
const slicesByMetadata = (_a: Argvish, s?: DatasetSettings): boolean => (s?.slices ?? []).some((k) => k.split(',').some((x) => x.trim() !== '' && x.trim() !== 'fileType' && !/^pageCount(:|$)/.test(x.trim())));

/**
 * Config key -> option, per command. A member fills an option only when the command declares it,
 * so an entry for an option a command does not have yet is inert.
 */
export const OPTION_MAP: readonly OptionMapping[] = [
  { key: 'processor', command: 'validate', option: 'processor', when: noConfigFile },
  { key: 'processor', command: 'schema', option: 'processor', when: noConfigFile },
  { key: 'processor', command: 'dataset harvest', option: 'processor' },
  { key: 'processor', command: 'dataset upload', option: 'processor', when: (a) => a.createSet !== undefined },
  { key: 'evaluationSet', command: 'eval run', option: 'evaluationSet' },
  { key: 'evaluationSet', command: 'dataset download', option: 'evaluationSet' },
  { key: 'evaluationSet', command: 'dataset upload', option: 'evaluationSet', when: noCreateSet },
  { key: 'evaluationSet', command: 'dataset harvest', option: 'evaluationSet', when: noCreateSet },
  { key: 'csv', command: 'dataset upload', option: 'csv', path: true },
  { key: 'csv', command: 'eval run', option: 'metadata', path: true, when: slicesByMetadata },
  { key: 'csv', command: 'dataset upload', option: 'source', path: true },
  { key: 'export', command: 'eval run', option: 'out', path: true },
  { key: 'export', command: 'report', option: 'from', path: true },
  { key: 'baseline', command: 'report', option: 'baseline', path: true },
  { key: 'outDir', command: 'report', option: 'outDir', path: true },
  { key: 'formats', command: 'report', option: 'formats' },
  { key: 'fuzzyFields', command: 'eval run', option: 'fuzzyMatchFields' },
  { key: 'excludeFields', command: 'eval run', option: 'excludeFields' },
  { key: 'fuzzyThreshold', command: 'report', option: 'fuzzyThreshold' },
  { key: 'numberTolerance', command: 'report', option: 'numberTolerance' },
  { key: 'gates', command: 'report', option: 'gate' },
  { key: 'allowUnderpowered', command: 'report', option: 'allowUnderpowered' },
  { key: 'targetAccuracy', command: 'report', option: 'targetAccuracy' },
  { key: 'slices', command: 'report', option: 'sliceBy' },
];

/** Commands the middleware leaves alone: init writes the file, config show reads it itself, completion prints a script. */
const SKIP = new Set(['init', 'config', 'completion']);

export const kebab = (camel: string): string => camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** `dataset upload` for `evalkit dataset upload x.csv`: the leading command words. */
export function commandPath(argv: Argvish): string {
  const words = Array.isArray(argv._) ? argv._.filter((w): w is string => typeof w === 'string') : [];
  return words.join(' ');
}

interface ParsedInfo {
  defaulted: Record<string, boolean>;
  aliases: Record<string, string[]>;
}

/** The names yargs knows an option by (kebab, camel and aliases). */
function namesOf(option: string, parsed: ParsedInfo): string[] {
  const set = new Set([option, kebab(option)]);
  for (const n of [...set]) for (const a of parsed.aliases[n] ?? []) set.add(a);
  return [...set];
}

/** The user set it on the command line (yargs filled neither a default nor nothing). */
export function passed(argv: Argvish, option: string, parsed: ParsedInfo): boolean {
  const names = namesOf(option, parsed);
  return argv[option] !== undefined && !names.some((n) => parsed.defaulted[n]);
}

/** A config value as the option takes it: paths relative to the working folder. */
export function optionValue(m: OptionMapping, value: unknown, loaded: LoadedSettings, cwd = process.cwd()): unknown {
  if (!m.path || typeof value !== 'string') return value;
  return path.relative(cwd, path.resolve(loaded.dir, value)) || '.';
}

export interface SettingsState {
  loaded?: LoadedSettings;
  picked?: PickedDataset;
}

/** Where the service settings come from when no flag sets them: the environment, else the file. */
function applyServiceSettings(loaded: LoadedSettings | undefined): void {
  const set = (env: string, value: string | undefined): void => {
    if (value !== undefined && (process.env[env] ?? '').trim() === '') process.env[env] = value;
  };
  set('EVALKIT_BASE_URL', loaded?.config.baseUrl);
  set('EVALKIT_API_VERSION', loaded?.config.apiVersion);
  set('EVALKIT_WORKSPACE_ID', loaded?.config.workspaceId);
}

/** Reads the config file (--config-file, else the nearest evalkit.config.json upward) and picks the dataset. */
export async function loadForCommand(argv: Argvish, cwd = process.cwd()): Promise<SettingsState> {
  const given = typeof argv.configFile === 'string' ? argv.configFile : undefined;
  if (given !== undefined && given.trim() === '') throw new UsageError('--config-file needs a file name');
  const file = given ?? (await (await import('../settings/find.js')).findSettingsFile(cwd));
  if (file === undefined) {
    if (typeof argv.dataset === 'string') throw new UsageError(`--dataset ${argv.dataset}: no evalkit.config.json here or in a folder above`, { hint: 'pass --config-file FILE, or create one with evalkit init' });
    return {};
  }
  const { readSettings, pickDataset } = await import('../settings/load.js');
  const loaded = await readSettings(file);
  return { loaded, picked: pickDataset(loaded, typeof argv.dataset === 'string' ? argv.dataset : undefined) };
}

/** Where this run's settings came from, for reports that name their sources (JUnit `file`). */
export interface SettingsSources {
  /** The config file, when the gates came from it. */
  gatesFile?: string;
  /** The picked dataset's CSV. */
  csv?: string;
  /** The options of this command the file filled (camelCase). */
  filled?: string[];
  /** The picked dataset section: its file, its name, and whether it names an evaluation set. */
  dataset?: { file: string; name: string; evaluationSet: boolean };
}

let sources: SettingsSources = {};

export function settingsSources(): SettingsSources {
  return sources;
}

/**
 * The middleware: fills each option of the running command that the user did not pass from the
 * picked dataset section, and the service settings from the file when neither flag nor
 * environment sets them.
 */
export async function applySettings(argv: Argvish, y: Argv): Promise<void> {
  // Per run: a library caller may run several commands in one process (main() in the tests).
  sources = {};
  const cmd = commandPath(argv);
  if (argv.help || cmd === '' || SKIP.has(cmd.split(' ')[0])) return;
  const { loaded, picked } = await loadForCommand(argv);
  applyServiceSettings(loaded);
  if (!loaded) return;
  const parsed = (y as unknown as { parsed: ParsedInfo }).parsed;
  const options = (y as unknown as { getOptions(): { key: Record<string, unknown>; array: string[] } }).getOptions();
  const declared = options.key;
  const arrays = new Set(options.array);
  const applicable = OPTION_MAP.filter((m) => m.command === cmd && (m.option in declared || kebab(m.option) in declared) && !passed(argv, m.option, parsed) && (m.when?.(argv, picked?.settings) ?? true));
  if (!picked) {
    const names = Object.keys(loaded.config.datasets ?? {});
    const wanted = applicable.filter((m) => names.some((n) => loaded.config.datasets![n][m.key] !== undefined));
    if (wanted.length) {
      throw new UsageError(`${loaded.file} has ${names.length} datasets: name one with --dataset`, { hint: `choose from ${names.join(', ')} (their ${[...new Set(wanted.map((m) => m.key))].join(', ')} would fill options of ${cmd})` });
    }
    return;
  }
  const filled = new Set<string>();
  const filledOptions: string[] = [];
  for (const m of applicable) {
    const value = picked.settings[m.key];
    if (value === undefined) continue;
    let v = optionValue(m, value, loaded);
    // An option that may be repeated (report --from) holds an array, also when the file gives one value.
    if ((arrays.has(m.option) || arrays.has(kebab(m.option))) && !Array.isArray(v)) v = [v];
    for (const n of namesOf(m.option, parsed)) argv[n] = v;
    filled.add(m.key);
    filledOptions.push(m.option);
  }
  const csv = picked.settings.csv;
  sources = {
    gatesFile: filled.has('gates') ? path.relative(process.cwd(), loaded.file) || loaded.file : undefined,
    csv: typeof csv === 'string' ? path.relative(process.cwd(), path.resolve(loaded.dir, csv)) : undefined,
    filled: filledOptions,
    dataset: { file: path.relative(process.cwd(), loaded.file) || loaded.file, name: picked.name, evaluationSet: picked.settings.evaluationSet !== undefined },
  };
}
