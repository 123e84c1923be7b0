import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { buildModel, type ExpectedModel } from '../../src/expected/model.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function tmpDir(prefix = 'evalkit-dataset-'): string {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export function writeTmp(name: string, content: string | Buffer, dir = tmpDir()): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

/** An EXTRACT config with one field of each type, a nested object and line items. */
export const EXTRACT_CONFIG = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      invoice_number: { type: ['string', 'null'] },
      invoice_date: { type: ['string', 'null'], format: 'date' },
      paid: { type: ['boolean', 'null'] },
      pages: { type: ['integer', 'null'] },
      status: { enum: ['Open', 'Paid', 'Void', null] },
      total: {
        type: 'object',
        'extend:type': 'currency',
        properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } },
      },
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] }, country: { type: ['string', 'null'] } } },
      line_items: {
        type: 'array',
        items: { type: 'object', properties: { description: { type: ['string', 'null'] }, amount: { type: ['number', 'null'] } } },
      },
    },
  },
};

export const CLASSIFY_CONFIG = {
  type: 'CLASSIFY',
  classifications: [
    { id: 'invoice', type: 'invoice', description: '' },
    { id: 'bank_statement', type: 'bank_statement', description: '' },
    { id: 'rcpt', type: 'receipt', description: '' },
  ],
};

export const SPLITTER_CONFIG = {
  type: 'SPLITTER',
  splitClassifications: [
    { id: 'invoice', type: 'invoice', description: '' },
    { id: 'receipt', type: 'receipt', description: '' },
  ],
};

export function modelFor(config: Record<string, unknown>): ExpectedModel {
  return buildModel(config, config.type as 'EXTRACT' | 'CLASSIFY' | 'SPLITTER');
}
