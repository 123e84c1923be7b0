import type { EvalkitCommand } from './command.js';
import migrate from './migrate.js';
import validate from './validate.js';
import schema from './schema.js';
import sandbox from './sandbox.js';
import report from './report.js';
import dataset from './dataset.js';
import evalCommand from './eval.js';
import demo from './demo.js';
import webhooks from './webhooks.js';
import processors from './processors.js';
import history from './history.js';
import init from './init.js';
import config from './config.js';
import ci from './ci.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each command has its own argv type
export type AnyCommand = EvalkitCommand<any>;

/** Every command of the CLI, in the order `--help` lists them. One line per command module. */
export const commands: AnyCommand[] = [init, config, migrate, validate, schema, processors, dataset, evalCommand, report, history, ci, sandbox, webhooks, demo];
