import { describe, expect, it } from 'vitest';
import { checkSettings } from '../../src/settings/load.js';
import { baseUrlToCommit, csvTemplate, datasetNameFrom, scaffold } from '../../src/settings/scaffold.js';
import { buildModel } from '../../src/expected/model.js';
import { EVALKIT_ACTION, renderWorkflow } from '../../src/settings/workflow.js';

const extract = {
  type: 'EXTRACT',
  schema: {
    type: 'object',
    properties: {
      number: { type: ['string', 'null'] },
      date: { type: ['string', 'null'], format: 'date' },
      total: { type: 'object', 'extend:type': 'currency', properties: { amount: { type: ['number', 'null'] }, iso_4217_currency_code: { type: ['string', 'null'] } } },
      vendor: { type: 'object', properties: { name: { type: ['string', 'null'] }, country: { type: ['string', 'null'], enum: ['DE', 'GB', null] } } },
      lines: { type: 'array', items: { type: 'object', properties: { qty: { type: ['integer', 'null'] } } } },
    },
  },
};

describe('evalkit init: scaffolding', () => {
  it.each([
    ['EXTRACT', extract, 'file,number,date,total,vendor.name,vendor.country,lines[0].qty,# notes', 'files/example.pdf,example,2025-01-31,100.00 USD,example,DE,1,'],
    ['CLASSIFY', { type: 'CLASSIFY', classifications: [{ id: 'invoice', type: 'invoice' }] }, 'file,class,# notes', 'files/example.pdf,invoice,'],
    ['SPLITTER', { type: 'SPLITTER', splitClassifications: [{ id: 'receipt', type: 'receipt' }] }, 'file,splits,# notes', 'files/example.pdf,receipt:1-2,'],
  ] as const)('a %s config gives a header of its fields and one example row', (type, config, header, row) => {
    const [head, example, end] = csvTemplate(buildModel(config as Record<string, unknown>, type)).split('\n');
    expect(head).toBe(header);
    expect(example.startsWith(row)).toBe(true);
    expect(end).toBe('');
  });

  it('fields whose names are not header paths go in one expectedOutput JSON cell', () => {
    const model = buildModel({ type: 'EXTRACT', schema: { type: 'object', properties: { 'a.b': { type: 'string' } } } }, 'EXTRACT');
    const [head, row] = csvTemplate(model).split('\n');
    expect(head).toBe('file,expectedOutput,# notes');
    expect(row).toContain('"{""a.b"":""example""}"');
  });

  it.each([
    ['Invoice extraction', 'invoice-extraction'],
    ['résumés (2025)', 'resumes-2025'],
    ['__', 'default'],
    ['a.b_c', 'a.b_c'],
  ])('dataset name from %j is %j', (text, name) => {
    expect(datasetNameFrom(text)).toBe(name);
  });

  it('writes a config the schema accepts, a CSV and the workflow that uses the action with config-file and dataset', async () => {
    const files = scaffold({ dataset: 'invoices', type: 'EXTRACT', config: extract, processorId: 'dp_1', evaluationSet: 'ev_1', baseUrl: 'https://api.example.com', schemaRef: './schema.json', csv: 'data.csv' });
    expect(files.map((f) => [f.kind, f.file])).toEqual([
      ['config', 'evalkit.config.json'],
      ['csv', 'data.csv'],
      ['workflow', '.github/workflows/evalkit.yml'],
      ['processor-config', 'configs/invoices.json'],
    ]);
    const doc = JSON.parse(files[0].text) as Record<string, unknown>;
    expect(Object.keys(doc)[0]).toBe('$schema');
    await expect(checkSettings(doc, 'evalkit.config.json')).resolves.toMatchObject({ baseUrl: 'https://api.example.com', datasets: { invoices: { processor: 'dp_1', evaluationSet: 'ev_1', csv: 'data.csv', outDir: 'reports/invoices' } } });
    expect(files[2].text).toBe(renderWorkflow({ configFile: 'evalkit.config.json', dataset: 'invoices', reportsDir: 'reports/invoices', processorConfig: 'configs/invoices.json' }));
    // The workflow evaluates the processor config written beside it, as the checkout has it.
    expect(JSON.parse(files[3].text)).toEqual(extract);
    expect(files[2].text).toContain('PROCESSOR_CONFIG: "configs/invoices.json"\n        run: npx evalkit eval run --config-file "evalkit.config.json" --dataset "invoices" --config "$PROCESSOR_CONFIG"');
    expect(files[2].text).toContain('EVALKIT_BASE_URL: ${{ vars.EVALKIT_BASE_URL }}');
    expect(files[2].text).toContain(`uses: ${EVALKIT_ACTION}\n        with:\n          config-file: "evalkit.config.json"\n          dataset: "invoices"`);
    expect(files[2].text).toContain('uses: actions/upload-artifact@v4');
    expect(files[2].text).toContain('path: "reports/invoices"');
    expect(files[2].text).not.toMatch(/EVALKIT_API_TOKEN: [^$]/);
  });

  it('a processor config file already in the repository is evaluated in place, not copied', () => {
    const files = scaffold({ dataset: 'invoices', type: 'EXTRACT', config: extract, schemaRef: './schema.json', csv: 'data.csv', configFile: 'processors/invoice.json' });
    expect(files.map((f) => f.kind)).toEqual(['config', 'csv', 'workflow']);
    expect(files[2].text).toContain('PROCESSOR_CONFIG: "processors/invoice.json"');
  });

  it.each([
    ['http://127.0.0.1:8787', undefined, 'loopback'],
    ['http://127.8.9.10', undefined, 'loopback'],
    ['http://localhost:3000/v1', undefined, 'loopback'],
    ['http://evalkit.localhost', undefined, 'loopback'],
    ['http://[::1]:8787', undefined, 'loopback'],
    ['http://[::ffff:127.0.0.1]:8787', undefined, 'loopback'],
    ['http://0.0.0.0:8787', undefined, 'unspecified'],
    ['http://[::]:8787', undefined, 'unspecified'],
    ['http://192.168.1.20:8787', 'sk_sandbox_abc', "a sandbox's address"],
    ['https://api.example.com', undefined, null],
    ['https://api.example.com', 'sk_live_abc', null],
    ['http://192.168.1.20:8787', undefined, null],
  ])('base URL %s (token %s): %s', (url, token, why) => {
    const r = baseUrlToCommit(url, token);
    if (why === null) expect(r).toEqual({ baseUrl: url });
    else {
      expect(r.baseUrl).toBeUndefined();
      expect(r.omitted).toContain(why);
    }
  });

  it.each([
    ['https://user:sk_SECRETPW@api.example.com', /user name or password/],
    ['https://api.example.com/?key=sk_SECRETQ', /query string or fragment/],
    ['https://api.example.com/#sk_SECRETF', /query string or fragment/],
    ['sk_SECRETNOTURL', /not a valid URL/],
    ['ftp://api.example.com', /must use http or https/],
  ])('a base URL the client would refuse is never committed: %s', (url, why) => {
    const e = (() => {
      try {
        baseUrlToCommit(url);
      } catch (x) {
        return x as Error;
      }
      return null;
    })();
    expect(e?.message).toMatch(why);
    expect(JSON.stringify({ m: e?.message, h: (e as { hint?: string } | null)?.hint })).not.toMatch(/SECRET/);
  });

  it('the config file never holds a loopback address, whoever calls scaffold', () => {
    const files = scaffold({ dataset: 'x', type: 'EXTRACT', config: extract, baseUrl: 'http://127.0.0.1:8787', schemaRef: './schema.json', csv: 'data.csv' });
    for (const f of files) expect(f.text).not.toContain('127.0.0.1');
  });
});
