// Golden files: the json, md and junit renderings of small fixed exports, compared byte for byte
// with test/fixtures/report/golden/<case>/. After a deliberate change to a renderer or a metric,
// regenerate them and review the diff before committing:
//
//   UPDATE_GOLDEN=1 npx vitest run test/report/golden.test.ts
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderJson, renderJunit, renderMarkdown } from '../../src/report/index.js';
import { FIXTURES, GOLDEN, goldenReportWithDocuments } from './golden.js';

const UPDATE = process.env.UPDATE_GOLDEN === '1';

describe.each(Object.entries(GOLDEN))('golden %s', (name, c) => {
  type Made = Awaited<ReturnType<typeof goldenReportWithDocuments>>;
  const renderers = {
    'report.json': (m: Made) => renderJson(m.report),
    'report.md': (m: Made) => renderMarkdown(m.report),
    'report.junit.xml': (m: Made) => renderJunit(m.report),
    'documents.jsonl': (m: Made) => m.documents,
  };
  it.each(Object.keys(renderers))('%s', async (file) => {
    const text = renderers[file as keyof typeof renderers](await goldenReportWithDocuments(c));
    const golden = path.join(FIXTURES, 'golden', name, file);
    if (UPDATE) {
      mkdirSync(path.dirname(golden), { recursive: true });
      writeFileSync(golden, text);
    }
    expect(existsSync(golden), `${golden} is missing: run UPDATE_GOLDEN=1 npx vitest run test/report/golden.test.ts`).toBe(true);
    expect(text).toBe(readFileSync(golden, 'utf8'));
  });
});
