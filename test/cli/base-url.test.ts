// --base-url is never echoed back: a value pasted by mistake may be a token, and a URL may hold
// user:password@. The error says what is wrong and how to fix it, without the value (built CLI).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('--base-url', () => {
  it.each([
    ['a token pasted instead of the address', 'sk_live_4f9a8b7c6d5e4f3a2b1c', /--base-url is not an http\(s\) address: it must start with http:\/\/ or https:\/\/ and a host/],
    ['another scheme with a password', 'ftp://deploy:hunter2secret@files.example.com', /--base-url is not an http\(s\) address/],
    ['an http URL with user:password@', 'http://deploy:hunter2secret@127.0.0.1:9', /the service base URL holds a user name or password/],
  ])('%s: exit 2, what is wrong and the fix, and the value nowhere in the output', async (_name, value, said) => {
    const r = await runCli(['processors', 'list', '--base-url', value], { env: { EVALKIT_API_TOKEN: 'tok_e2e_base_url_test', EVALKIT_BASE_URL: '' } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(said);
    expect(r.stderr).toMatch(/hint|EVALKIT_API_TOKEN|--base-url http:\/\/127\.0\.0\.1:8787|remove them/);
    const secret = value.includes('hunter2secret') ? 'hunter2secret' : value;
    expect(r.stdout + r.stderr).not.toContain(secret);
  });
});
