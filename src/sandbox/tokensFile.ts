/**
 * The tokens file (`--tokens FILE`), validated once at start with zod. Loaded only when a
 * tokens file is given, so a plain `evalkit sandbox` starts without loading zod.
 *
 *   {"tokens": [{"token": "sk_ci_0123456789", "createdAt": "2025-05-01",
 *                "processors": ["dp_..."] | "*", "workflows": "*", "apiVersion": "2024-12-23"}]}
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import { parseJson } from '../util/json.js';
import { toRecords, type TokenRecord } from './auth.js';
import { API_VERSIONS } from './versioning.js';

const scope = z.union([z.literal('*'), z.array(z.string().min(1))]).optional();

export const tokensFileSchema = z.strictObject({
  tokens: z
    .array(
      z.strictObject({
        token: z.string().min(8, 'a token must have at least 8 characters').regex(/^\S+$/, 'a token cannot contain spaces'),
        name: z.string().optional(),
        createdAt: z.string().refine((s) => /^\d{4}-\d{2}-\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), 'createdAt must be an ISO date such as 2025-05-01'),
        processors: scope,
        workflows: scope,
        apiVersion: z.enum(API_VERSIONS).optional(),
      }),
    )
    .min(1, 'list at least one token'),
});

export function parseTokensFile(text: string, file: string): TokenRecord[] {
  const doc = parseJson(text, file);
  const r = tokensFileSchema.safeParse(doc);
  if (!r.success) {
    const issue = r.error.issues[0];
    throw new InputError(`invalid tokens file: ${issue.message}`, {
      location: { file, pointer: issue.path.map((p) => '/' + String(p)).join('') },
      hint: 'expected {"tokens": [{"token": "...", "createdAt": "2025-05-01", "processors": ["dp_..."] | "*"}]}',
    });
  }
  const seen = new Set<string>();
  r.data.tokens.forEach((t, i) => {
    if (seen.has(t.token)) throw new InputError('duplicate token', { location: { file, pointer: `/tokens/${i}/token` }, hint: 'every token must be unique' });
    seen.add(t.token);
  });
  return toRecords(r.data.tokens);
}

export function loadTokensFile(file: string): TokenRecord[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`cannot read tokens file: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file }, hint: 'check the --tokens path' });
  }
  return parseTokensFile(text, file);
}
