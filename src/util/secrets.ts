/**
 * The API token and the webhook secret must never reach output, logs, errors, reports or
 * journals. Everything the CLI prints to stderr passes through redact(), and the client builds
 * errors without headers.
 */
// GITHUB_TOKEN: `evalkit ci github` sends it to GitHub only.
const SECRET_ENV = ['EVALKIT_API_TOKEN', 'EVALKIT_WEBHOOK_SECRET', 'GITHUB_TOKEN'];

export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  return SECRET_ENV.map((k) => env[k]).filter((v): v is string => typeof v === 'string' && v.length >= 4);
}

export function redact(text: string, secrets: string[] = secretValues()): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('***');
  return out;
}

/**
 * A URL as it may be shown: a user name or password becomes `***` (`https://***@host/`), and so
 * do a query string and a fragment (`?***`, `#***`: a token is pasted there too). Text that is
 * not a URL is not shown at all (a token pasted into the wrong variable is not a URL either).
 */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return '(not a URL; not shown)';
  }
  const secretParts = url.username !== '' || url.password !== '';
  if (!secretParts && url.search === '' && url.hash === '') return text;
  const shown = `${url.protocol}//${secretParts ? '***@' : ''}${url.host}${url.pathname}`;
  return `${shown}${url.search !== '' ? '?***' : ''}${url.hash !== '' ? '#***' : ''}`;
}
