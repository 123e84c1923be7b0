import type { Argv } from 'yargs';
import { listSubcommands, defineCommand } from './command.js';
import { UsageError } from '../util/errors.js';
import { escapeControls, formatOption, out, outJson, warn } from './io.js';

interface ShowArgs {
  dir: string;
  metric: string[];
  last?: string;
  format: 'text' | 'json';
}

const show = defineCommand<ShowArgs>({
  command: 'show <dir>',
  describe: 'each metric over time, from the history folder `evalkit report --history DIR` keeps',
  builder: (y) =>
    y
      .positional('dir', { type: 'string', demandOption: true, describe: 'the history folder (one JSON file per report)' })
      .option('metric', { alias: 'm', type: 'string', array: true, default: [] as string[], describe: "metrics to show (repeatable; `*` matches any text, e.g. 'field:*.f1'); default the headline metrics" })
      .option('last', { type: 'string', describe: 'only the last N reports' })
      .option('format', formatOption)
      .example('$0 history show .evalkit-history', 'the headline metrics of every report, with a sparkline each')
      .example("$0 history show .evalkit-history -m micro.f1 -m 'field:*.f1' --last 20", 'micro F1 and every field F1 over the last 20 reports')
      .example('$0 history show .evalkit-history --format json', 'the series as JSON (stable keys)') as unknown as Argv<ShowArgs>,
  async run(argv) {
    // Read as text, so that a wrong value is echoed as typed (a number option makes `abc` NaN).
    let last: number | undefined;
    if (argv.last !== undefined) {
      const typed = String(argv.last);
      if (!/^\s*\d+\s*$/.test(typed) || Number(typed) < 1) throw new UsageError(`--last ${JSON.stringify(typed)}: expected a whole number of reports, 1 or more`);
      last = Number(typed);
    }
    const metrics = argv.metric.map(String);
    const empty = metrics.find((m) => m.split(',').every((p) => p.trim() === ''));
    if (empty !== undefined) throw new UsageError(`--metric ${JSON.stringify(empty)}: empty metric pattern`, { hint: "name a metric (micro.f1) or a pattern ('field:*.f1'); without --metric the headline metrics are shown" });
    const { readHistory, historySeries, renderHistoryText } = await import('../history/index.js');
    const history = await readHistory(argv.dir);
    for (const w of history.warnings) warn(w);
    const view = historySeries(history.entries, { metrics: metrics.flatMap((m) => m.split(',')).map((m) => m.trim()).filter(Boolean), last });
    if (argv.format === 'json') outJson({ ...view, warnings: history.warnings });
    // Entries are files anyone may have written: their strings (commits, field ids) are shown, never interpreted.
    else out(escapeControls(renderHistoryText(view, argv.dir)));
    return 0;
  },
});

export default defineCommand<{ command?: string }>({
  command: 'history [command]',
  describe: 'the report history: what `evalkit report --history DIR` kept, each metric over time',
  builder: (y) =>
    y
      .example('$0 report --from run.json --history .evalkit-history', 'add this report to the history')
      .example('$0 history show .evalkit-history', 'each metric over time') as unknown as Argv<{ command?: string }>,
  subcommands: [show],
  // yargs runs a subcommand's handler; this one runs for none (a list) or an unknown one.
  run: async (argv) => listSubcommands('history', argv.command, [show]),
});
