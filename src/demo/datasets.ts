/**
 * The sample datasets the demo runs: every folder of datasets/ with a dataset.json. The
 * manifest says where the CSV and the saved (old-layout) config are, and what the demo does
 * with them that a user would decide: the edit that makes the draft differ from 1.0, the
 * upload's coercion options and the evaluation options.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { InputError } from '../util/errors.js';
import { parseJson } from '../util/json.js';

const Manifest = z
  .object({
    title: z.string().min(1).describe('shown in the summary'),
    csv: z.string().min(1).describe('the CSV, relative to the dataset folder'),
    config: z.string().min(1).describe('the saved processor config, relative to the dataset folder'),
    configLayout: z.enum(['2024-11-14', '2025-04-21']),
    processorName: z.string().min(1),
    draftEdit: z
      .object({
        description: z.string().min(1).describe('what the edit does, in one line'),
        config: z.record(z.string(), z.unknown()).describe('members set on the draft config (2025-04-21 layout)'),
      })
      .strict(),
    upload: z
      .object({
        currency: z.string().optional(),
        decimalComma: z.boolean().optional(),
        dateOrder: z.enum(['dmy', 'mdy']).optional(),
      })
      .strict()
      .default({}),
    evaluation: z
      .object({
        fuzzyMatchFields: z.array(z.string()).default([]),
        excludeFields: z.array(z.string()).default([]),
      })
      .strict()
      .default({ fuzzyMatchFields: [], excludeFields: [] }),
  })
  .strict();

export type DatasetManifest = z.infer<typeof Manifest>;

export interface DemoDataset extends DatasetManifest {
  /** The folder's name: also the name of its report folder. */
  name: string;
  dir: string;
  csvPath: string;
  configPath: string;
}

/** Datasets in name order; a folder without dataset.json is not a dataset. */
export async function findDatasets(root: string): Promise<DemoDataset[]> {
  let entries;
  try {
    entries = await fsp.readdir(root, { withFileTypes: true });
  } catch (e) {
    throw new InputError(`cannot read the datasets folder: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, { location: { file: root }, hint: 'run from the evalkit checkout, or pass --datasets DIR' });
  }
  const out: DemoDataset[] = [];
  for (const e of entries.filter((x) => x.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
    const dir = path.join(root, e.name);
    const file = path.join(dir, 'dataset.json');
    const text = await fsp.readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const parsed = Manifest.safeParse(parseJson(text, file));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const pointer = '/' + issue.path.map(String).join('/');
      throw new InputError(`invalid dataset manifest: ${issue.message}`, { location: { file, pointer }, hint: 'see datasets/README.md for the members of dataset.json' });
    }
    out.push({ ...parsed.data, name: e.name, dir, csvPath: path.join(dir, parsed.data.csv), configPath: path.join(dir, parsed.data.config) });
  }
  if (!out.length) throw new InputError('no dataset.json in any folder', { location: { file: root }, hint: 'each dataset is a folder with dataset.json, its CSV and the files it names' });
  return out;
}
