// src/ci/github.ts: workflow command escaping, $GITHUB_OUTPUT, the comment's marker and size,
// finding the comment across pages, and errors that never carry the token.
import { describe, expect, it } from 'vitest';
import { commentMarker, commentOf, escapeData, escapeProperty, formatAnnotation, formatOutputs, GitHubApiError, outputsOf, pullRequestOf, upsertComment, type FetchFn } from '../../src/ci/github.js';
import { parseOutputFile } from '../helpers/action.js';
import { GOLDEN, goldenReport } from '../report/golden.js';

describe('workflow commands', () => {
  it.each([
    ['100% sure', '100%25 sure', '100%25 sure'],
    ['a\r\nb', 'a%0D%0Ab', 'a%0D%0Ab'],
    ['field:total.f1, again', 'field:total.f1, again', 'field%3Atotal.f1%2C again'],
    ['%0A is not a newline', '%250A is not a newline', '%250A is not a newline'],
  ])('%j: data %j, property %j', (text, data, property) => {
    expect(escapeData(text)).toBe(data);
    expect(escapeProperty(text)).toBe(property);
  });

  it('one line whatever a field name holds: no second command can start', () => {
    const line = formatAnnotation({ level: 'error', title: 'gate x::y,z', message: 'bad\n::set-env name=A::b', file: 'a,b:c.json' });
    expect(line).toBe('::error file=a%2Cb%3Ac.json,title=gate x%3A%3Ay%2Cz::bad%0A::set-env name=A::b');
    expect(line.split('\n')).toHaveLength(1);
  });
});

describe('outputs', () => {
  it('every name in the heredoc format, read back as written; the delimiter in a value is refused', async () => {
    const r = await goldenReport(GOLDEN.classify);
    const outputs = outputsOf(r, { reportJson: 'out/report.json' });
    expect(outputs).toMatchObject({ verdict: 'fail', type: 'CLASSIFY', 'headline-metric': 'accuracy', 'micro-f1': '', 'report-json': 'out/report.json' });
    expect(parseOutputFile(formatOutputs(outputs, 'ghadelimiter_x'))).toEqual(outputs);
    expect(() => formatOutputs({ a: 'b\nghadelimiter_x\nc' }, 'ghadelimiter_x')).toThrow(/delimiter/);
  });
});

describe('comment', () => {
  it('starts with its marker (one per key) and stays under GitHub\'s 65536 characters', async () => {
    const r = await goldenReport(GOLDEN['extract-baseline']);
    expect(commentMarker()).toBe('<!-- evalkit-report -->');
    expect(commentMarker('receipts/eu --x')).toBe('<!-- evalkit-report:receipts_eu_--x -->');
    const body = commentOf(r, { key: 'receipts' });
    expect(body.startsWith('<!-- evalkit-report:receipts -->\n**evalkit ❌ failed**')).toBe(true);
    expect(body.length).toBeLessThan(65536);
    expect(body).toContain('<details><summary>Full report</summary>');
  });

  it('the pull request of pull_request and issue_comment events, none of a push', () => {
    expect(pullRequestOf({ pull_request: { number: 3 } })).toBe(3);
    expect(pullRequestOf({ issue: { number: 4, pull_request: {} } })).toBe(4);
    expect(pullRequestOf({ issue: { number: 4 } })).toBeUndefined();
    expect(pullRequestOf({ ref: 'refs/heads/main' })).toBeUndefined();
  });
});

describe('upsertComment', () => {
  const target = { apiUrl: 'https://ghe.example/api/v3/', repository: 'o/r', token: 'tok_secret_1234', pullRequest: 5 };

  it('finds its comment on the second page and updates it', async () => {
    const calls: string[] = [];
    const page = (n: number) => Array.from({ length: n === 1 ? 100 : 20 }, (_, i) => ({ id: n * 1000 + i, body: n === 2 && i === 7 ? '<!-- evalkit-report -->\n**evalkit ✅ passed**' : n === 1 && i === 3 ? 'quoting it: <!-- evalkit-report --> is in the bot\'s comment' : 'lgtm' }));
    const fetchFn: FetchFn = async (url, init) => {
      calls.push(`${init.method} ${url}`);
      if (init.method === 'GET') return Response.json(page(Number(new URL(url).searchParams.get('page'))));
      return Response.json({ id: 2007, html_url: 'https://ghe.example/o/r/pull/5#issuecomment-2007' });
    };
    const r = await upsertComment(target, 'body', commentMarker(), fetchFn);
    expect(r).toEqual({ action: 'updated', id: 2007, url: 'https://ghe.example/o/r/pull/5#issuecomment-2007' });
    expect(calls).toEqual([
      'GET https://ghe.example/api/v3/repos/o/r/issues/5/comments?per_page=100&page=1',
      'GET https://ghe.example/api/v3/repos/o/r/issues/5/comments?per_page=100&page=2',
      'PATCH https://ghe.example/api/v3/repos/o/r/issues/comments/2007',
    ]);
  });

  it('passes over a comment it may not update (another author\'s that starts with the marker): the bot\'s is updated, or a new one made', async () => {
    const alice = { id: 11, body: '<!-- evalkit-report --> ha', user: { login: 'alice', type: 'User' } };
    const bot = { id: 12, body: '<!-- evalkit-report -->\nold', user: { login: 'github-actions[bot]', type: 'Bot' } };
    const run = async (comments: object[]): Promise<{ r: unknown; calls: string[] }> => {
      const calls: string[] = [];
      const fetchFn: FetchFn = async (url, init) => {
        calls.push(`${init.method} ${new URL(url).pathname}`);
        if (init.method === 'GET') return Response.json(comments);
        if (init.method === 'PATCH') return url.endsWith('/11') ? Response.json({ message: 'Forbidden' }, { status: 403 }) : Response.json({ id: 12, html_url: 'u12' });
        return Response.json({ id: 13, html_url: 'u13' });
      };
      return { r: await upsertComment(target, 'body', commentMarker(), fetchFn), calls };
    };
    // The bot's comment first, though alice's is older.
    expect(await run([alice, bot])).toEqual({ r: { action: 'updated', id: 12, url: 'u12' }, calls: ['GET /api/v3/repos/o/r/issues/5/comments', 'PATCH /api/v3/repos/o/r/issues/comments/12'] });
    // Only alice's: refused, so a comment of its own (the next run finds and updates that one).
    expect(await run([alice])).toEqual({ r: { action: 'created', id: 13, url: 'u13' }, calls: ['GET /api/v3/repos/o/r/issues/5/comments', 'PATCH /api/v3/repos/o/r/issues/comments/11', 'POST /api/v3/repos/o/r/issues/5/comments'] });
  });

  it('a refusal is a GitHubApiError with the status and GitHub\'s message, never the token', async () => {
    const fetchFn: FetchFn = async () => Response.json({ message: `Resource not accessible (token ${target.token})` }, { status: 403 });
    const e = await upsertComment(target, 'body', commentMarker(), fetchFn).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(GitHubApiError);
    expect((e as GitHubApiError).status).toBe(403);
    expect((e as Error).message).toBe('GET /repos/o/r/issues/5/comments?per_page=100&page=1: 403 Resource not accessible (token ***)');
  });

  it('no answer at all is status 0', async () => {
    const fetchFn: FetchFn = async () => {
      throw new TypeError('fetch failed');
    };
    await expect(upsertComment(target, 'body', commentMarker(), fetchFn)).rejects.toMatchObject({ status: 0 });
  });
});
