/**
 * Loopback checks on addresses, not names: the sandbox fetches file URLs and sends webhooks only
 * to this machine. A name is resolved and every address it resolves to must be loopback
 * (`foo.localhost` may resolve anywhere); IPv4-mapped IPv6 (`[::ffff:127.0.0.1]`, which the URL
 * parser writes `[::ffff:7f00:1]`) is loopback like the IPv4 address it maps.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** An IP literal (brackets allowed) on the loopback interface. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '').toLowerCase();
  const kind = isIP(a);
  // BlockList matches an IPv4-mapped IPv6 address against the IPv4 rules.
  return kind !== 0 && LOOPBACK.check(a, kind === 4 ? 'ipv4' : 'ipv6');
}

/** Undefined when every address `hostname` resolves to is loopback, else why not. */
export async function notLoopback(hostname: string, resolve: typeof lookup = lookup): Promise<string | undefined> {
  const h = hostname.replace(/^\[|\]$/g, '');
  if (isIP(h)) return isLoopbackAddress(h) ? undefined : `${h} is not a loopback address`;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolve(h, { all: true });
  } catch (e) {
    return `"${h}" does not resolve (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
  }
  const outside = addresses.find((a) => !isLoopbackAddress(a.address));
  if (addresses.length === 0) return `"${h}" resolves to no address`;
  return outside ? `"${h}" resolves to ${outside.address}, which is not a loopback address` : undefined;
}
