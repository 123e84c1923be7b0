/**
 * `evalkit webhooks listen`: receives webhook events (from the service or `evalkit sandbox`),
 * verifies each signature and prints the verified events as JSON lines on stdout. Rejected
 * requests get 401/400 and one line on stderr. Ends on Ctrl-C / SIGTERM or after --max-events,
 * with a tally; exit 1 when any request was rejected, whichever way it ended; else 0, or 130
 * after Ctrl-C (as `evalkit sandbox` and every interrupted command).
 */
import type { Argv } from 'yargs';
import { UsageError } from '../util/errors.js';
import { sortKeysDeep } from '../util/json.js';
import { isQuiet } from './style.js';
import { defineCommand, listSubcommands } from './command.js';
import { err, keepExitCodeOnInterrupt, out } from './io.js';

export const SECRET_ENV = 'EVALKIT_WEBHOOK_SECRET';

interface WebhooksArgs {
  action?: 'listen';
  port: number;
  host: string;
  secret?: string;
  toleranceSeconds: number;
  maxEvents?: number;
}

const LISTING = [{ command: 'listen', describe: 'run a receiver that verifies webhook events and prints them as JSON lines' }];

export default defineCommand<WebhooksArgs>({
  listing: LISTING,
  command: 'webhooks [action]',
  describe: 'webhook events: `listen` receives, verifies and prints them (JSON lines), for wiring up an endpoint',
  builder: (y) =>
    (y as Argv<object>)
      .positional('action', { choices: ['listen'] as const, describe: 'listen: run a receiver that verifies and prints events' })
      .option('port', { type: 'number', default: 8788, describe: 'port to listen on (0: any free port)' })
      .option('host', { type: 'string', default: '127.0.0.1', describe: 'address to listen on' })
      .option('secret', { type: 'string', describe: `the endpoint's signing secret; prefer ${SECRET_ENV} (a flag is visible in the process list)` })
      .option('tolerance-seconds', { type: 'number', default: 300, describe: 'reject events signed longer ago than this (replays); 60 s of clock skew into the future are allowed' })
      .option('max-events', { type: 'number', describe: 'stop after this many verified events' })
      .example(`${SECRET_ENV}=whsec_... $0 webhooks listen --port 9000`, 'print verified events sent to http://127.0.0.1:9000')
      .example(`$0 webhooks listen --port 9000 --max-events 1 | jq .payload.status`, 'wait for one event and show its payload\'s status')
      .example('$0 sandbox --webhooks hooks.json', 'send the sandbox\'s events here: hooks.json lists {"url": "http://127.0.0.1:9000", "secret": ...}')
      .epilogue(
        'Signatures: hex HMAC-SHA256(secret, "v0:" + timestamp + ":" + raw body) in x-service-webhook-signature, the unix timestamp in ' +
          'x-service-webhook-timestamp. Answers 200 (verified), 401 (unsigned, expired, future, tampered), 400 (malformed headers or body). See docs/webhooks.md.',
      ) as unknown as Argv<WebhooksArgs>,
  async run(argv) {
    if (argv.action === undefined) return listSubcommands('webhooks', undefined, LISTING);
    const secret = argv.secret ?? process.env[SECRET_ENV];
    if (!secret) throw new UsageError('no webhook secret', { hint: `set ${SECRET_ENV} (or pass --secret) to the endpoint's signing secret` });
    if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535) throw new UsageError('--port must be an integer from 0 to 65535');
    if (!(argv.toleranceSeconds > 0)) throw new UsageError('--tolerance-seconds must be a number > 0');
    if (argv.maxEvents !== undefined && !(Number.isInteger(argv.maxEvents) && argv.maxEvents >= 1)) throw new UsageError('--max-events must be an integer >= 1');
    const { startWebhookListener } = await import('../api/webhookListener.js');
    let verified = 0;
    let rejected = 0;
    let duplicates = 0;
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => {
      stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    const listener = await startWebhookListener({
      secret,
      port: argv.port,
      host: argv.host,
      toleranceSeconds: argv.toleranceSeconds,
      onEvent: (event, info) => {
        if (info.duplicate) {
          duplicates++;
          err(`evalkit webhooks listen: duplicate ${event.eventType} ${event.eventId} (a retry; printed before)`);
          return;
        }
        verified++;
        out(JSON.stringify(sortKeysDeep(event)));
        if (argv.maxEvents !== undefined && verified >= argv.maxEvents) stop();
      },
      onReject: (reason, info) => {
        rejected++;
        err(`evalkit webhooks listen: rejected ${info.method} ${info.path} with ${reason.status}: ${reason.kind}: ${reason.message}`);
      },
    });
    if (!isQuiet()) err(`evalkit webhooks listen: listening on ${listener.url} (secret from ${argv.secret ? '--secret' : SECRET_ENV}); Ctrl-C stops`);
    await stopped;
    await listener.close();
    if (!isQuiet()) err(`evalkit webhooks listen: ${verified} verified, ${rejected} rejected${duplicates ? `, ${duplicates} duplicate${duplicates === 1 ? '' : 's'}` : ''}`);
    if (rejected === 0) return 0;
    // "Rejected" outranks "interrupted": Ctrl-C ends it with 1 as SIGTERM does.
    keepExitCodeOnInterrupt();
    return 1;
  },
});
