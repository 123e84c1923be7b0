import type { Argv } from 'yargs';
import { UsageError } from '../util/errors.js';
import { defineCommand } from './command.js';
import { out, outJson } from './io.js';
import { configOptions, expectedFormFor, inConfig, loadConfigSource, type ConfigArgs } from './validate.js';

interface SchemaArgs extends ConfigArgs {
  types: boolean;
  strict: boolean;
  name: string;
}

export default defineCommand<SchemaArgs>({
  command: 'schema',
  describe: "print the JSON Schema of a processor config's expected output, or a TypeScript type for it",
  builder: (y) =>
    configOptions(y)
      .option('types', { type: 'boolean', default: false, describe: 'print a TypeScript type (json-schema-to-typescript) instead of the JSON Schema' })
      .option('strict', { type: 'boolean', default: false, describe: 'every configured field required (as validate --strict checks)' })
      .option('name', { type: 'string', default: 'ExpectedOutput', describe: 'name of the generated type (with --types)' })
      .example('$0 schema --config invoice.config.json > expected.schema.json', 'the JSON Schema of a valid expectedOutput')
      .example('$0 schema --config invoice.config.json --types --name InvoiceOutput > invoice-output.ts', 'a TypeScript type for code that reads run outputs')
      .example('$0 schema --processor ex_123 --version draft', "from the processor's draft config") as unknown as Argv<SchemaArgs>,
  run: async (argv) => {
    const { deriveExpectedSchema, expectedSchemaToTypeScript } = await import('../expected/index.js');
    // A TypeScript identifier (ASCII letters, digits, _ and $, not starting with a digit).
    // json-schema-to-typescript makes a PascalCase name of it (`invoice-output` -> InvoiceOutput): refused
    // only when that would be empty or start with a digit.
    if (argv.types && (!/[A-Za-z_$]/.test(argv.name) || /^[^A-Za-z_$\d]*\d/.test(argv.name))) {
      throw new UsageError(`--name ${JSON.stringify(argv.name)} is not a TypeScript type name`, { hint: 'start it with a letter: for example --name InvoiceExpected' });
    }
    const source = await loadConfigSource(argv);
    const form = await expectedFormFor(source);
    const schema = inConfig(source, () => deriveExpectedSchema(source.config, { type: source.type, form, strict: argv.strict }));
    if (argv.types) out(await expectedSchemaToTypeScript(schema, argv.name));
    else outJson(schema);
    return 0;
  },
});
