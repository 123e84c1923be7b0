/**
 * `evalkit ci github`: publishes a report.json in a GitHub Actions job: the job summary, one
 * sticky pull-request comment, annotations for failed gates and regressions, step outputs.
 * The repository's action.yml runs `evalkit report`, then this. The comment is a courtesy:
 * when GitHub refuses it (a fork's read-only token: 403), the run warns and goes on; the exit
 * code is the report's verdict (0 passed, 1 a gate failed).
 */
import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import type { Argv } from 'yargs';
import type * as GitHub from '../ci/github.js';
import type { Report } from '../metrics/generated/report.js';
import { InputError, UsageError } from '../util/errors.js';
import { defineCommand, listSubcommands } from './command.js';
import { formatOption, out, outJson, warn } from './io.js';
import { isQuiet } from './style.js';

interface GithubArgs {
  report: string;
  comment: boolean;
  commentKey?: string;
  pr?: number;
  summary: boolean;
  annotations: boolean;
  outputs: boolean;
  gatesFile?: string;
  format: 'text' | 'json';
}

const github = defineCommand<GithubArgs>({
  command: 'github',
  describe: 'publish a report.json in a GitHub Actions job: job summary, one sticky pull-request comment, annotations, step outputs',
  builder: (y) =>
    (y as Argv<object>)
      .option('report', { type: 'string', demandOption: true, describe: 'the report.json `evalkit report` wrote' })
      .option('comment', { type: 'boolean', default: true, describe: 'create or update the pull request\'s evalkit comment (REST, token from $GITHUB_TOKEN, API at $GITHUB_API_URL)' })
      .option('comment-key', { type: 'string', describe: 'one comment per key on a pull request (several processors or datasets in one workflow)' })
      .option('pr', { type: 'number', describe: 'pull request number (default: from the event at $GITHUB_EVENT_PATH)' })
      .option('summary', { type: 'boolean', default: true, describe: 'append the verdict and the Markdown report to $GITHUB_STEP_SUMMARY' })
      .option('annotations', { type: 'boolean', default: true, describe: 'print ::error/::warning workflow commands for failed gates and regressions' })
      .option('outputs', { type: 'boolean', default: true, describe: 'write the verdict and headline metrics to $GITHUB_OUTPUT' })
      .option('gates-file', { type: 'string', describe: 'the file the gates are written in, to attach gate annotations to it' })
      .option('format', formatOption)
      .example('$0 ci github --report reports/run/report.json', 'in a workflow step, after `evalkit report --from run.json --no-step-summary` (ci github writes the job summary)')
      .example('$0 ci github --report out/report.json --comment-key receipts --no-annotations', 'a second report with its own comment')
      .epilogue(
        'Reads GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_API_URL, GITHUB_EVENT_PATH, GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, GITHUB_SERVER_URL and GITHUB_RUN_ID, ' +
          'as a GitHub Actions job sets them. The token needs `pull-requests: write`; without it (a pull request from a fork) the comment is skipped with a warning. ' +
          'Exit code: 0 the report passed, 1 a gate failed, 2 usage or input error. See docs/ci.md.',
      ) as unknown as Argv<GithubArgs>,
  async run(argv) {
    const { loadReport } = await import('../report/load.js');
    const gh = await import('../ci/github.js');
    // report.json alone: its documents.jsonl (826 MB for a million documents) is not needed here.
    const report = await loadReport(argv.report);
    const env = process.env;
    const done: string[] = [];
    const result: Record<string, unknown> = { passed: report.gates.passed, verdict: gh.verdictOf(report) };

    // The pull request is settled before anything is written: a broken event file stops the step
    // with nothing appended to the summary or the outputs.
    const pr = argv.comment ? await pullRequestNumber(argv, gh) : undefined;
    const annotations = argv.annotations ? gh.annotationsOf(report, { gatesFile: argv.gatesFile }) : [];
    result.annotations = annotations;

    if (argv.summary) {
      const file = env.GITHUB_STEP_SUMMARY;
      if (!file) done.push('summary: skipped (GITHUB_STEP_SUMMARY is not set)');
      else {
        await appendTo(file, 'GITHUB_STEP_SUMMARY', gh.summaryOf(report));
        done.push(`summary: appended to ${file}`);
      }
      result.summary = Boolean(file);
    }

    const warnings: string[] = [];
    let commentUrl: string | undefined;
    if (argv.comment) {
      const c = await postComment(argv, pr, report, gh);
      result.comment = c;
      if (c.warning) warnings.push(c.warning);
      if (c.url) commentUrl = c.url;
      done.push(c.action === 'skipped' ? `comment: skipped (${c.reason})` : `comment: ${c.action} ${c.url ?? ''}`.trim());
    }

    if (argv.outputs) {
      const outputs = gh.outputsOf(report, { reportJson: argv.report, commentUrl });
      result.outputs = outputs;
      const file = env.GITHUB_OUTPUT;
      if (!file) done.push('outputs: skipped (GITHUB_OUTPUT is not set)');
      else {
        await appendTo(file, 'GITHUB_OUTPUT', gh.formatOutputs(outputs, `ghadelimiter_${randomUUID()}`));
        done.push(`outputs: ${Object.keys(outputs).length} written to ${file}`);
      }
    }

    for (const w of warnings) warn(w);
    if (argv.format === 'json') {
      outJson({ ...result, warnings });
    } else {
      // Workflow commands go to stdout, where the runner reads them.
      const lines = [...annotations.map(gh.formatAnnotation), ...warnings.map((w) => gh.formatAnnotation({ level: 'warning', title: 'evalkit comment', message: w }))];
      if (!isQuiet()) lines.push(...done, `verdict: ${gh.verdictOf(report)} (${report.gates.results.filter((g) => !g.passed).length} of ${report.gates.results.length} gate(s) failed, ${report.baseline?.tally.regressed ?? 0} regression(s))`);
      if (lines.length) out(lines.join('\n'));
    }
    return report.gates.passed ? 0 : 1;
  },
});

type CommentOutcome = { action: 'created' | 'updated'; url: string; warning?: undefined } | { action: 'skipped'; reason: string; url?: undefined; warning?: string; status?: number };

/** The pull request to comment on: --pr, else the one of the workflow's event ($GITHUB_EVENT_PATH); InputError when that file cannot be read. */
async function pullRequestNumber(argv: GithubArgs, gh: typeof GitHub): Promise<number | undefined> {
  const env = process.env;
  let pr = argv.pr;
  if (pr !== undefined && !(Number.isInteger(pr) && pr > 0)) throw new UsageError(`--pr ${pr} is not a pull request number`);
  if (pr === undefined && env.GITHUB_EVENT_PATH) {
    let event: unknown;
    try {
      event = JSON.parse(await fsp.readFile(env.GITHUB_EVENT_PATH, 'utf8'));
    } catch (e) {
      throw new InputError(`cannot read the workflow event: ${(e as Error).message}`, { location: { file: env.GITHUB_EVENT_PATH }, hint: 'GITHUB_EVENT_PATH is set by GitHub Actions; pass --pr N to name the pull request' });
    }
    pr = gh.pullRequestOf(event);
  }
  return pr;
}

async function postComment(argv: GithubArgs, pr: number | undefined, report: Report, gh: typeof GitHub): Promise<CommentOutcome> {
  const env = process.env;
  if (pr === undefined) return { action: 'skipped', reason: 'not a pull request' };
  const token = env.GITHUB_TOKEN;
  if (!token) return { action: 'skipped', reason: 'no token', warning: 'GITHUB_TOKEN is not set: no pull request comment (the action passes its github-token input)' };
  const repository = env.GITHUB_REPOSITORY;
  if (!repository) return { action: 'skipped', reason: 'no repository', warning: 'GITHUB_REPOSITORY is not set: no pull request comment' };
  const runUrl = env.GITHUB_SERVER_URL && env.GITHUB_RUN_ID ? `${env.GITHUB_SERVER_URL}/${repository}/actions/runs/${env.GITHUB_RUN_ID}` : undefined;
  const body = gh.commentOf(report, { key: argv.commentKey, runUrl });
  try {
    const r = await gh.upsertComment({ apiUrl: env.GITHUB_API_URL || 'https://api.github.com', repository, token, pullRequest: pr }, body, gh.commentMarker(argv.commentKey));
    return { action: r.action, url: r.url };
  } catch (e) {
    if (!(e instanceof gh.GitHubApiError)) throw e;
    const hint =
      e.status === 403 || e.status === 404
        ? 'the token may not write to pull requests: give the job `permissions: pull-requests: write`; a pull request from a fork gets a read-only token, and the job summary has the report'
        : e.status === 401
          ? 'the token was refused: pass the job\'s github.token'
          : 'the job summary and the outputs have the report';
    return { action: 'skipped', reason: `GitHub answered ${e.status || 'nothing'}`, status: e.status, warning: `pull request comment not posted: ${e.message} (${hint})` };
  }
}

async function appendTo(file: string, name: string, text: string): Promise<void> {
  try {
    await fsp.appendFile(file, text);
  } catch (e) {
    throw new InputError(`cannot append to ${name}: ${(e as Error).message}`, { location: { file }, hint: `${name} is set by GitHub Actions; unset it outside a workflow` });
  }
}

export default defineCommand<{ command?: string }>({
  command: 'ci [command]',
  describe: 'publish reports in CI: `ci github` writes the job summary, a sticky pull-request comment, annotations and outputs',
  builder: (y) =>
    y.example('$0 ci github --report reports/run/report.json', 'in a GitHub Actions step (or use the repository\'s action.yml)') as unknown as Argv<{ command?: string }>,
  subcommands: [github],
  run: async (argv) => listSubcommands('ci', argv.command, [github]),
});
