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
