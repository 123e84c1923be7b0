import { UsageError } from '../util/errors.js';

/** A host that cannot be resolved or is no address of this machine: a usage error naming it (undefined for other errors). */
export function hostError(e: NodeJS.ErrnoException, host: string): UsageError | undefined {
  const why = e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN' || e.code === 'EAI_NONAME' ? 'cannot be resolved to an address'
    : e.code === 'EADDRNOTAVAIL' ? 'is not an address of this machine'
    : undefined;
  return why ? new UsageError(`host ${host} ${why}`, { hint: 'pass --host an address of this machine: 127.0.0.1 (this machine only) or 0.0.0.0 (all interfaces)' }) : undefined;
}
