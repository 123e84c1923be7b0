/**
 * GitHub Actions from a report: the job summary, one sticky pull-request comment, workflow
 * command annotations for failed gates and regressions, and step outputs. Pure functions from
 * a Report to text, plus a small REST client (fetch) that creates or updates the comment.
 * Nothing here reads the environment or prints: `evalkit ci github` gathers the context.
 */
import type { ComparisonRow, Report } from '../metrics/generated/report.js';
import { num, renderMarkdown, text } from '../report/markdown.js';
import { headlineChangeText, headlineMetric } from '../report/headline.js';

// ---------------------------------------------------------------------------------------------
// Workflow commands

/** A workflow command's message: `%`, CR and LF escaped as the runner reads them back. */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A workflow command's property value: as escapeData, and the delimiters `:` and `,` too. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export interface Annotation {
  level: 'error' | 'warning' | 'notice';
  title: string;
  message: string;
  /** A file in the repository the annotation is attached to. */
  file?: string;
}

/** `::error file=F,title=T::message`, one line whatever the text holds. */
export function formatAnnotation(a: Annotation): string {
  const props = [...(a.file ? [`file=${escapeProperty(a.file)}`] : []), `title=${escapeProperty(a.title)}`];
  return `::${a.level} ${props.join(',')}::${escapeData(a.message)}`;
}

function regressionText(row: ComparisonRow, file: string): string {
  const iv = row.interval ? ` (95% interval ${num(row.interval.lower)} to ${num(row.interval.upper)})` : '';
  return `${row.key} regressed against ${file}: ${num(row.baseline)} -> ${num(row.current)}, delta ${num(row.delta)}${iv}; McNemar p ${num(row.mcnemar.p, 4)}, Holm ${num(row.pHolm, 4)}`;
}

/**
 * An error per failed gate and, with --fail-on-regression, per regressed metric; without it a
 * regression is a warning (it does not fail the run, but a reviewer should see it).
 */
export function annotationsOf(r: Report, opts: { gatesFile?: string } = {}): Annotation[] {
  const out: Annotation[] = [];
  for (const g of r.gates.results) {
    if (!g.passed) out.push({ level: 'error', title: `evalkit gate ${g.gate} failed`, message: g.reason ?? `${g.metric} ${num(g.value)}, threshold ${g.threshold}`, file: opts.gatesFile });
  }
  const b = r.baseline;
  if (b) {
    for (const row of b.rows) {
      if (row.verdict !== 'regressed') continue;
      out.push({ level: r.gates.failOnRegression ? 'error' : 'warning', title: `evalkit regression ${row.key}`, message: regressionText(row, b.file) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Step outputs

/** The metric a report is judged by first, per processor type. */
export function headlineOf(r: Report): { metric: string; value: number | null } {
  return headlineMetric(r);
}

export type Verdict = 'pass' | 'fail';

export function verdictOf(r: Report): Verdict {
  return r.gates.passed ? 'pass' : 'fail';
}

/**
 * The action's outputs, every name always present ('' where the report has no such value), so
 * that `steps.x.outputs.micro-f1` reads the same whatever the processor type.
 */
export function outputsOf(r: Report, extra: { reportJson?: string; commentUrl?: string } = {}): Record<string, string> {
  const n = (v: number | null | undefined): string => (v === null || v === undefined ? '' : String(v));
  const h = headlineOf(r);
  const x = r.extract;
  const c = r.classify;
  const s = r.splitter;
  const failedGates = r.gates.results.filter((g) => !g.passed).length;
  return {
    verdict: verdictOf(r),
    passed: String(r.gates.passed),
    type: r.type,
    processor: r.source.processor.id,
    version: r.source.processor.version,
    documents: String(r.summary.documents),
    'failed-runs': String(r.summary.failed),
    'headline-metric': h.metric,
    headline: n(h.value),
    'micro-f1': n(x?.micro.f1.value),
    'micro-precision': n(x?.micro.precision.value),
    'micro-recall': n(x?.micro.recall.value),
    'macro-f1': n(x?.macro.f1.value ?? c?.macro.f1.value),
    'document-accuracy': n(x?.document.accuracy.value),
    accuracy: n(c?.accuracy.value),
    'weighted-f1': n(c?.weighted.f1.value),
    f1: n(s?.f1.value ?? x?.micro.f1.value),
    'gates-total': String(r.gates.results.length),
    'gates-failed': String(failedGates),
    regressions: String(r.baseline?.tally.regressed ?? 0),
    improvements: String(r.baseline?.tally.improved ?? 0),
    'latency-p95': n(r.cost?.latency?.p95),
    'credits-mean': n(r.cost?.credits?.mean),
    'report-json': extra.reportJson ?? '',
    'comment-url': extra.commentUrl ?? '',
  };
}

/**
 * $GITHUB_OUTPUT's format: `name<<DELIMITER`, the value, the delimiter, so a value may hold any
 * line. The delimiter is random (the caller's), and a value that holds it is refused.
 */
export function formatOutputs(outputs: Record<string, string>, delimiter: string): string {
  let textOut = '';
  for (const [k, v] of Object.entries(outputs)) {
    if (k.includes(delimiter) || v.includes(delimiter)) throw new Error(`output ${k} contains the delimiter`);
    textOut += `${k}<<${delimiter}\n${v}\n${delimiter}\n`;
  }
  return textOut;
}

// ---------------------------------------------------------------------------------------------
// Summary and comment

export interface CommentOptions {
  /** Tells apart the comments of several reports on one pull request (one per processor, say). */
  key?: string;
  /** The workflow run, linked from the comment. */
  runUrl?: string;
}

/** The hidden line a comment is found again by. */
export function commentMarker(key?: string): string {
  const k = key ? `:${key.replace(/[^A-Za-z0-9._-]/g, '_')}` : '';
  return `<!-- evalkit-report${k} -->`;
}

function headlineLine(r: Report): string {
  const p = r.source.processor;
  const h = headlineOf(r);
  const failedGates = r.gates.results.filter((g) => !g.passed);
  const verdict = r.gates.passed ? '✅ passed' : '❌ failed';
  const gates =
    r.gates.results.length === 0 && !r.gates.failOnRegression
      ? 'no gates'
      : `${failedGates.length} of ${r.gates.results.length} gate(s) failed${r.gates.failOnRegression ? (r.gates.regressed.length ? `, ${r.gates.regressed.length} significant regression(s)` : ', no significant regression') : ''}`;
  // With a baseline the line leads with the headline change (micro F1 0.953 -> 0.936).
  const change = headlineChangeText(r);
  if (change) return `**evalkit ${verdict}**: ${change} · ${text(p.name || p.id)} ${text(p.version)} on ${r.summary.documents} documents · ${gates}`;
  return `**evalkit ${verdict}**: ${text(p.name || p.id)} ${text(p.version)} on ${r.summary.documents} documents: ${h.metric} ${num(h.value)} · ${gates}`;
}

/** What is appended to $GITHUB_STEP_SUMMARY: the verdict line, then the whole Markdown report. */
export function summaryOf(r: Report): string {
  return `${headlineLine(r)}\n\n${renderMarkdown(r)}\n`;
}

/**
 * The sticky comment: the marker, the verdict line, failed gates and regressions in a list, and
 * the whole Markdown report folded away; under GitHub's 65536 characters.
 */
export function commentOf(r: Report, opts: CommentOptions = {}): string {
  const lines = [commentMarker(opts.key), headlineLine(r), ''];
  for (const g of r.gates.results) if (!g.passed) lines.push(`- ❌ gate \`${g.gate.replace(/`/g, "'")}\`: ${text(g.reason ?? '')}`);
  for (const row of r.baseline?.rows ?? []) if (row.verdict === 'regressed') lines.push(`- ${r.gates.failOnRegression ? '❌' : '⚠️'} ${text(regressionText(row, r.baseline?.file ?? 'the baseline'))}`);
  if (opts.runUrl) lines.push('', `[Workflow run](${opts.runUrl}) · the reports are the run's artifacts.`);
  lines.push('', '<details><summary>Full report</summary>', '', renderMarkdown(r, 50_000), '', '</details>', '');
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// REST: the sticky comment

export interface GitHubTarget {
  /** GITHUB_API_URL: https://api.github.com, or a GitHub Enterprise Server's /api/v3. */
  apiUrl: string;
  /** owner/name (GITHUB_REPOSITORY). */
  repository: string;
  token: string;
  pullRequest: number;
}

export type FetchFn = (url: string, init: { method: string; headers: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<Response>;

/** A REST call that failed: the status (0 when no answer came) and GitHub's message, never the token. */
export class GitHubApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GitHubApiError';
  }
}

export interface CommentResult {
  action: 'created' | 'updated';
  id: number;
  url: string;
}

interface IssueComment {
  id: number;
  body?: string;
  html_url?: string;
  user?: { login?: string; type?: string } | null;
}

const PER_PAGE = 100;
const MAX_PAGES = 30;

async function call<T>(t: GitHubTarget, fetchFn: FetchFn, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${t.apiUrl.replace(/\/+$/, '')}${path}`;
  let res: Response;
  try {
    res = await fetchFn(url, {
      method,
      headers: {
        accept: 'application/vnd.github+json',
        authorization: `Bearer ${t.token}`,
        'x-github-api-version': '2022-11-28',
        'user-agent': 'evalkit',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new GitHubApiError(0, `${method} ${path}: no answer from ${t.apiUrl} (${(e as Error).message})`);
  }
  const textBody = await res.text();
  if (!res.ok) {
    let message = textBody.slice(0, 300);
    try {
      const m = (JSON.parse(textBody) as { message?: unknown }).message;
      if (typeof m === 'string') message = m;
    } catch {
      // not JSON: the first characters of the body
    }
    throw new GitHubApiError(res.status, `${method} ${path}: ${res.status} ${message}`.replaceAll(t.token, '***'));
  }
  try {
    return (textBody ? JSON.parse(textBody) : {}) as T;
  } catch {
    throw new GitHubApiError(res.status, `${method} ${path}: the answer is not JSON`);
  }
}

/**
 * The comments that start with this marker (pages of 100, oldest first), those written by a bot
 * first (the job's GITHUB_TOKEN writes as github-actions[bot]): anyone may write a comment that
 * starts with the marker, and only the comment's author can update it.
 */
export async function findComments(t: GitHubTarget, marker: string, fetchFn: FetchFn = fetch): Promise<IssueComment[]> {
  const [owner, repo] = t.repository.split('/');
  const bots: IssueComment[] = [];
  const others: IssueComment[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const list = await call<IssueComment[]>(t, fetchFn, 'GET', `/repos/${enc(owner)}/${enc(repo)}/issues/${t.pullRequest}/comments?per_page=${PER_PAGE}&page=${page}`);
    if (!Array.isArray(list)) throw new GitHubApiError(200, 'the list of comments is not an array');
    for (const c of list) if (typeof c.body === 'string' && c.body.trimStart().startsWith(marker)) (c.user?.type === 'Bot' ? bots : others).push(c);
    if (list.length < PER_PAGE) break;
  }
  return [...bots, ...others];
}

const enc = (s: string | undefined): string => encodeURIComponent(s ?? '');

/**
 * Creates the comment, or updates the one an earlier run made (found by its marker at its start),
 * so a pull request has one evalkit comment however often the workflow runs. A comment it may not
 * update (another author's that starts with the marker) is passed over.
 */
export async function upsertComment(t: GitHubTarget, body: string, marker: string, fetchFn: FetchFn = fetch): Promise<CommentResult> {
  if (!/^[^/\s]+\/[^/\s]+$/.test(t.repository)) throw new GitHubApiError(0, `"${t.repository}" is not owner/name`);
  const [owner, repo] = t.repository.split('/');
  for (const existing of await findComments(t, marker, fetchFn)) {
    try {
      const c = await call<IssueComment>(t, fetchFn, 'PATCH', `/repos/${enc(owner)}/${enc(repo)}/issues/comments/${existing.id}`, { body });
      return { action: 'updated', id: existing.id, url: c.html_url ?? existing.html_url ?? '' };
    } catch (e) {
      // Someone else's comment that starts with the marker (403), or one deleted meanwhile (404):
      // not ours to update; the next one, or a new comment.
      if (!(e instanceof GitHubApiError) || (e.status !== 403 && e.status !== 404)) throw e;
    }
  }
  const c = await call<IssueComment>(t, fetchFn, 'POST', `/repos/${enc(owner)}/${enc(repo)}/issues/${t.pullRequest}/comments`, { body });
  return { action: 'created', id: c.id, url: c.html_url ?? '' };
}

/** The pull request of a workflow's event payload ($GITHUB_EVENT_PATH), if the event has one. */
export function pullRequestOf(event: unknown): number | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const e = event as { pull_request?: { number?: unknown }; issue?: { number?: unknown; pull_request?: unknown }; number?: unknown };
  const n = e.pull_request?.number ?? (e.issue?.pull_request ? e.issue.number : undefined);
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}
