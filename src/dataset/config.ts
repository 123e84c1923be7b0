/**
 * The processor config for a dataset upload: from a file or the service, in either layout,
 * read in the 2025-04-21 layout (the migrate module's conversion; keys that do not shape an
 * expected output may be dropped, which is harmless here).
 */
import { DEFAULT_API_VERSION, type Client } from '../api/index.js';
import { migrateConfig } from '../config/index.js';
import { expectedFormOf, readConfigFile, type ConfigSource, type ExpectedForm, type ProcessorType } from '../expected/index.js';
import { InputError } from '../util/errors.js';

export function inCurrentLayout(source: ConfigSource): ConfigSource {
  try {
    const doc = migrateConfig(source.config, { to: '2025-04-21', allowLossy: true, allowUnknown: true, type: source.type }).doc as Record<string, unknown>;
    return { ...source, config: doc };
  } catch (e) {
    if (e instanceof InputError && e.location.file === undefined) {
      throw new InputError(e.message, { location: { ...e.location, file: source.origin }, hint: e.hint });
    }
    throw e;
  }
}

/**
 * The expected-output form items are read, built and sent in (spec 3.7): the one of the API
 * version the client speaks. Offline (no client) that of `apiVersion`, default evalkit's.
 */
export function formOf(client: Pick<Client, 'options'> | undefined, apiVersion?: string): ExpectedForm {
  return expectedFormOf(null, client ? client.options.apiVersion : (apiVersion ?? DEFAULT_API_VERSION));
}

export async function readDatasetConfig(file: string, type?: ProcessorType): Promise<ConfigSource> {
  return inCurrentLayout(await readConfigFile(file, type));
}
