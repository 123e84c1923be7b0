// `npm run gen:validators` writes src/config/generated/validators.ts: ajv's standalone code for the
// config schemas of schemas/, so that evalkit does not compile them at every start (about 0.2 s).
// `node scripts/gen-validators.mjs --check` writes nothing and exits 1 when the file is stale.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { writeGenerated } from './generated-file.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = 'src/config/generated/validators.ts';
const LAYOUTS = ['2024-11-14', '2025-04-21', '2026-02-09'];
const TYPES = ['extract', 'classify', 'splitter'];

export async function generate() {
  // The options src/config/validate.ts relied on when it compiled at run time.
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, code: { source: true, esm: true } });
  const refs = {};
  for (const layout of LAYOUTS) {
    const schema = JSON.parse(await readFile(path.join(ROOT, `schemas/config-${layout}.schema.json`), 'utf8'));
    ajv.addSchema(schema);
    for (const t of TYPES) refs[`${t}_${layout.replaceAll('-', '')}`] = `${schema.$id}#/$defs/${t}`;
  }
  const code = standaloneCode.default(ajv, refs).replace(/^"use strict";/, '');
  return `// @ts-nocheck\n/* eslint-disable */\n/* Generated from schemas/config-*.schema.json by scripts/gen-validators.mjs (npm run gen:validators). Do not edit. */\n${code}\n`;
}

// evalkit.config.json is read by every command: its validator is generated too (ajv itself takes
// longer to import than the whole check).
const SETTINGS_OUT = 'src/settings/generated/validator.ts';

export async function generateSettings() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, code: { source: true, esm: true } });
  const schema = JSON.parse(await readFile(path.join(ROOT, 'schemas/evalkit-config.schema.json'), 'utf8'));
  const code = standaloneCode.default(ajv, ajv.compile(schema)).replace(/^"use strict";/, '');
  return `// @ts-nocheck\n/* eslint-disable */\n/* Generated from schemas/evalkit-config.schema.json by scripts/gen-validators.mjs (npm run gen:validators). Do not edit. */\n${code}\n`;
}

/** ajv's standalone code names its run-time helpers with require(), even as ESM: a require of the module's own. */
function esmRequires(code) {
  return code.includes('require(') ? `import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);\n${code}` : code;
}

// The evaluation export's validators (report, eval) and the report's (every report.json is checked
// against its schema before it is written; baselines; ci): compiling them took about 0.4 s of
// every report. Two files: the report schema's code is large and only imported when needed.
const EXPORT_OUT = 'src/report/generated/validators.ts';
const REPORT_OUT = 'src/report/generated/report-validators.ts';

/** What a baseline needs of a report of format 1 or 2 (records inline): its type, options and documents. */
const OLD_REPORT_ID = 'https://evalkit.dev/schemas/old-report.schema.json';
const oldReportSchema = (reportId) => ({
  $id: OLD_REPORT_ID,
  type: 'object',
  required: ['format', 'type', 'options', 'documents'],
  properties: {
    format: { enum: ['evalkit-report/1', 'evalkit-report/2'] },
    type: { $ref: `${reportId}#/$defs/processorType` },
    options: { type: 'object' },
    documents: { type: 'array', items: { $ref: `${reportId}#/$defs/documentRecord` } },
  },
});

async function standaloneFor(refsOf, names) {
  // The options src/report/load.ts gave ajv when it compiled these at run time.
  const ajv = new Ajv2020({ allErrors: false, strict: true, strictTypes: false, code: { source: true, esm: true } });
  const schemas = {};
  for (const name of ['export', 'report']) {
    schemas[name] = JSON.parse(await readFile(path.join(ROOT, `schemas/${name}.schema.json`), 'utf8'));
    ajv.addSchema(schemas[name]);
  }
  ajv.addSchema(oldReportSchema(schemas.report.$id));
  const code = esmRequires(standaloneCode.default(ajv, refsOf(schemas)).replace(/^"use strict";/, ''));
  return `// @ts-nocheck\n/* eslint-disable */\n/* Generated from ${names} by scripts/gen-validators.mjs (npm run gen:validators). Do not edit. */\n${code}\n`;
}

export const generateExport = () =>
  standaloneFor(({ export: e }) => ({ exportDocument: e.$id, header: `${e.$id}#/$defs/header`, item: `${e.$id}#/$defs/item` }), 'schemas/export.schema.json');

export const generateReport = () =>
  standaloneFor(({ report: r }) => ({ report: r.$id, documentRecord: `${r.$id}#/$defs/documentRecord`, oldReport: OLD_REPORT_ID }), 'schemas/report.schema.json');

// An EXTRACT config's schema is checked against JSON Schema draft-07's meta-schema
// (src/expected/model.ts extractionSchemaIssues): compiling it took 60-80 ms of each command that
// reads a config, and of each sandbox start.
const META_OUT = 'src/expected/generated/json-schema-meta.ts';

export async function generateMeta() {
  // The options extractionSchemaIssues needs: every error (one per pointer is shown), unknown
  // keywords and formats let through (the service's `extend:type`).
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false, code: { source: true, esm: true } });
  const code = esmRequires(standaloneCode.default(ajv, { draft07: 'http://json-schema.org/draft-07/schema' }).replace(/^"use strict";/, ''));
  return `// @ts-nocheck\n/* eslint-disable */\n/* JSON Schema draft-07's meta-schema (from ajv) compiled by scripts/gen-validators.mjs (npm run gen:validators). Do not edit. */\n${code}\n`;
}

async function main(args) {
  for (const [out, make] of [[OUT, generate], [SETTINGS_OUT, generateSettings], [EXPORT_OUT, generateExport], [REPORT_OUT, generateReport], [META_OUT, generateMeta]]) {
    await writeGenerated(ROOT, out, await make(), args.includes('--check'), 'npm run gen:validators');
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
