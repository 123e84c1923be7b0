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

/** A URL as it may be shown: a user name or password in it becomes `***` (`https://***@host/`). */
export function redactUrl(text: string): string {
  try {
    const url = new URL(text);
    if (url.username === '' && url.password === '') return text;
    url.username = '';
    url.password = '';
    return url.href.replace(/^([a-z][a-z0-9+.-]*:\/\/)/i, '$1***@');
  } catch {
    return text;
  }
}
