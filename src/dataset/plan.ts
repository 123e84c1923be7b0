/**
 * Reconciliation: what to do so that the evaluation set holds exactly the CSV's rows.
 *
 * Rows and existing items are grouped by identity (the file's content hash, or the fileId the
 * row names). Within a group, items whose expected output equals a row's are kept as they are;
 * the remaining rows take over the remaining items (an update each); rows left over are
 * created; items left over are not in the CSV (deleted with --prune). Several rows may name the
 * same file: the group then holds several items, and a re-run still creates none twice.
 */
import { createHash } from 'node:crypto';
import { sortKeysDeep } from '../util/json.js';

export interface PlannedRow {
  line: number;
  identity: string;
  /** digestOf(expectedOutput) */
  digest: string;
}

export interface ExistingItem {
  id: string;
  identity: string;
  digest: string;
  /** The item's expected output as the service holds it (for the three-way merge). */
  output?: unknown;
}

export type RowAction = { kind: 'create' } | { kind: 'update'; itemId: string } | { kind: 'skip'; itemId: string };

export interface SyncPlan {
  /** One action per input row, in input order. */
  actions: RowAction[];
  /** Items not matched by any row: deleted with --prune, else left alone. */
  orphans: ExistingItem[];
  counts: { create: number; update: number; skip: number; orphans: number };
}

/** Order-independent fingerprint of an expected output (object keys sorted). */
export function digestOf(output: unknown): string {
  return createHash('sha256').update(JSON.stringify(sortKeysDeep(output))).digest('base64url').slice(0, 22);
}

/** One shared object: a plan holds an action per CSV row. */
const CREATE: RowAction = Object.freeze({ kind: 'create' });

export function planSync(rows: readonly PlannedRow[], items: readonly ExistingItem[]): SyncPlan {
  const byIdentity = new Map<string, ExistingItem[]>();
  for (const it of items) {
    const g = byIdentity.get(it.identity);
    if (g) g.push(it);
    else byIdentity.set(it.identity, [it]);
  }
  const used = new Set<string>();
  const actions: RowAction[] = new Array(rows.length);

  // Exact matches first, so an unchanged row never steals the item an edited row needs.
  rows.forEach((row, i) => {
    const g = byIdentity.get(row.identity);
    const hit = g?.find((it) => !used.has(it.id) && it.digest === row.digest);
    if (hit) {
      used.add(hit.id);
      actions[i] = { kind: 'skip', itemId: hit.id };
    }
  });
  rows.forEach((row, i) => {
    if (actions[i]) return;
    const spare = byIdentity.get(row.identity)?.find((it) => !used.has(it.id));
    if (spare) {
      used.add(spare.id);
      actions[i] = { kind: 'update', itemId: spare.id };
    } else actions[i] = CREATE;
  });
  const orphans = items.filter((it) => !used.has(it.id));
  const counts = { create: 0, update: 0, skip: 0, orphans: orphans.length };
  for (const a of actions) counts[a.kind]++;
  return { actions, orphans, counts };
}
