import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Argv } from 'yargs';
import { UsageError } from '../util/errors.js';
import { defineCommand } from './command.js';
import { err, formatOption, out, outJson, untilSignal, warn } from './io.js';

interface ViewArgs {
  paths: string[];
  port: string;
  open: boolean;
  files?: string[];
  remoteFiles: boolean;
  history?: string;
  format: 'text' | 'json';
  configFile?: string;
}

export default defineCommand<ViewArgs>({
  command: 'view [paths..]',
  describe: 'the explorer of report folders served on 127.0.0.1, with each document drawn and its values\' citations boxed on the page',
  builder: (y) =>
    (y as Argv<object>)
      .positional('paths', { type: 'string', array: true, default: [] as string[], describe: 'report folders (with report.json and report.html), or folders of them (default: .)' })
      .option('port', { type: 'string', default: '0', describe: 'port on 127.0.0.1 (0: any free port)' })
      .option('open', { type: 'boolean', default: false, describe: 'open the address in the default browser' })
      .option('files', { type: 'string', array: true, describe: 'a folder holding the documents\' files (searched below it by file name), repeatable; the config file\'s dataset CSVs are searched too' })
      .option('remote-files', { type: 'boolean', default: false, describe: 'a file not found on disk is downloaded from the service (EVALKIT_BASE_URL and EVALKIT_API_TOKEN; kept in memory only)' })
      .option('history', { type: 'string', describe: 'the history folder of `evalkit report --history DIR`: its charts at /history' })
      .option('format', formatOption)
      .example('$0 view reports/demo', 'the demo\'s three reports; the files come from the dataset CSVs of reports/demo/evalkit.config.json')
      .example('$0 view reports/draft --files eval/files', 'one report; its documents\' files from eval/files')
      .example('$0 view run-a run-b --port 8790 --open', 'two report folders side by side on a fixed port, opened in the browser')
      .epilogue(
        'Deep links: <address>r/0/#doc=<item id>&field=<field path>. Serves only files inside the folders it was given (report folders, --files, ' +
          'the dataset CSVs\' folders), answers only to the Host it prints, and sends nothing off the machine. Ctrl-C stops. See docs/view.md.',
      ) as unknown as Argv<ViewArgs>,
  async run(argv) {
    // Read as text, so that a wrong value is echoed as typed (a number option makes `abc` NaN).
    const typed = String(argv.port);
    if (!/^\s*\d+\s*$/.test(typed) || Number(typed) > 65535) throw new UsageError(`--port ${JSON.stringify(typed)}: must be an integer from 0 to 65535`, { hint: '0 picks any free port' });
    const port = Number(typed);
    const { findReports } = await import('../view/reports.js');
    const { FileFinder } = await import('../view/files.js');
    const { startView } = await import('../view/server.js');
    const reports = await findReports(argv.paths);
    const csvFiles = await datasetCsvs(argv.configFile, reports.map((r) => r.dir));
    const finder = new FileFinder({ filesDirs: argv.files, csvFiles, reportDirs: reports.map((r) => r.dir) });
    for (const n of finder.notes) warn(n, 'evalkit view');
    for (const r of reports) if (!r.exportFile) warn(`${r.shown}: the export ${r.report.source.file} is not beside report.json, nor the one file of that name under this folder; its documents show values but no files (move the export beside report.json)`, 'evalkit view');
    for (const r of reports) {
      if (r.report.baseline?.kind === 'export' && !r.baselineFile) warn(`${r.shown}: the baseline's export ${r.report.baseline.file} is not beside report.json, nor the one file of that name under this folder; its citations are not shown (move the baseline's export beside report.json)`, 'evalkit view');
    }
    const remoteFile = argv.remoteFiles ? await remoteFiles() : undefined;
    const history = argv.history ? await historySection(argv.history) : undefined;
    const view = await startView({ reports, finder, port, remoteFile, history }).catch((e: unknown) => {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`--port ${port}: the port is in use on 127.0.0.1`, { hint: 'pass another --port, or --port 0 for any free port' });
      throw e;
    });
    const stopped = untilSignal();
    if (argv.format === 'json') outJson({ url: view.url, reports: reports.map((r) => ({ folder: r.shown, url: `${view.url}r/${r.index}/` })), ...(argv.history ? { history: `${view.url}history` } : {}) });
    else {
      out(`evalkit view on ${view.url} (${reports.length} report${reports.length === 1 ? '' : 's'}; Ctrl-C stops)`);
      for (const r of reports) out(`  ${view.url}r/${r.index}/  ${r.shown}`);
      if (argv.history) out(`  ${view.url}history  ${argv.history}`);
    }
    if (argv.open) openBrowser(view.url);
    await stopped;
    await view.close();
    err('evalkit view: stopped');
    return 0;
  },
});

/** The CSVs of the config file's datasets: --config-file, else the nearest evalkit.config.json above each report folder. */
async function datasetCsvs(configFile: string | undefined, dirs: readonly string[]): Promise<string[]> {
  const { findSettingsFile, readSettings, resolveSettingsPath } = await import('../settings/load.js');
  const files = new Set<string>();
  if (configFile) files.add(path.resolve(configFile));
  else for (const d of dirs) {
    const f = await findSettingsFile(d);
    if (f) files.add(path.resolve(f));
  }
  const csvs: string[] = [];
  for (const f of files) {
    const loaded = await readSettings(f);
    for (const section of Object.values(loaded.config.datasets ?? {})) if (section.csv) csvs.push(resolveSettingsPath(loaded, section.csv));
  }
  return csvs;
}

/** The service's copy of a file through its presigned URL (the token goes to the service only). */
async function remoteFiles(): Promise<(fileId: string) => Promise<Uint8Array>> {
  if (!process.env.EVALKIT_BASE_URL || !process.env.EVALKIT_API_TOKEN) throw new UsageError('--remote-files needs the service: EVALKIT_BASE_URL (or --base-url) and EVALKIT_API_TOKEN');
  const { clientFromEnv } = await import('../api/index.js');
  const client = clientFromEnv();
  return async (fileId) => {
    const f = await client.files.retrieve(fileId);
    if (!f.presignedUrl) throw new Error(`the service gives no download URL for ${fileId}`);
    const res = await fetch(f.presignedUrl);
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    return new Uint8Array(await res.arrayBuffer());
  };
}

/** The history's charts, read again on each request (a report added while the server runs shows); a folder that cannot be read is exit 2 now. */
async function historySection(dir: string): Promise<() => Promise<string>> {
  const { readHistory, historySeries, renderHistoryHtml } = await import('../history/index.js');
  const first = await readHistory(dir);
  for (const w of first.warnings) warn(w, 'evalkit view');
  return async () => renderHistoryHtml(historySeries((await readHistory(dir)).entries));
}

function openBrowser(url: string): void {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => err(`evalkit view: could not start ${cmd}; open ${url} yourself`));
  child.unref();
}

