/**
 * A plausible output when no expected output is known (a run on a file that is in no
 * evaluation set): EXTRACT looks for "Label: value" lines naming each field, CLASSIFY picks the
 * class whose words occur most in the text, SPLITTER returns one split over all pages. Good
 * enough to drive a pipeline offline; evaluation runs use the items' expected outputs instead.
 */
import { isPlainObject } from '../../util/json.js';
import type { Json } from '../core.js';

export function synthesize(config: Json, text: string, pages: string[]): Json {
  if (config.type === 'CLASSIFY') return classifyByWords(config, text);
  if (config.type === 'SPLITTER') {
    const first = (Array.isArray(config.splitClassifications) ? config.splitClassifications : []).find(isPlainObject);
    const id = first ? String(first.id) : 'document';
    return { splits: [{ id: 'split_1', classificationId: id, type: first ? String(first.type ?? id) : 'document', startPage: 1, endPage: Math.max(1, pages.length) }] };
  }
  if (isPlainObject(config.schema)) {
    const props = isPlainObject(config.schema.properties) ? config.schema.properties : {};
    const value: Json = {};
    for (const [k, node] of Object.entries(props)) value[k] = fromSchema(k, node, text);
    return { value };
  }
  const out: Json = {};
  for (const f of (Array.isArray(config.fields) ? config.fields : []).filter(isPlainObject)) {
    const id = String(f.id);
    const name = typeof f.name === 'string' ? f.name : id;
    out[name] = { id, value: leaf(String(f.type ?? 'string'), find(text, [name, id]), f.enum) };
  }
  return out;
}

/** The field type of a JSON schema node, in the service's type names (currency, signature, enum, date...). */
export function kindOf(node: unknown): string {
  if (!isPlainObject(node)) return 'string';
  const ext = node['extend:type'];
  if (ext === 'currency' || ext === 'signature') return ext;
  if (Array.isArray(node.enum)) return 'enum';
  const t = Array.isArray(node.type) ? node.type.find((x) => x !== 'null') : node.type;
  if (t === 'integer') return 'number';
  if (t === 'string' && node.format === 'date') return 'date';
  return typeof t === 'string' ? t : 'string';
}

function fromSchema(key: string, node: unknown, text: string): unknown {
  const kind = kindOf(node);
  const n = isPlainObject(node) ? node : {};
  if (kind === 'array') return [];
  if (kind === 'object') {
    const out: Json = {};
    for (const [k, child] of Object.entries(isPlainObject(n.properties) ? n.properties : {})) out[k] = fromSchema(k, child, text);
    return out;
  }
  if (kind === 'signature') return { printed_name: null, signature_date: null, is_signed: null, title_or_role: null };
  const labels = [key, typeof n.title === 'string' ? n.title : ''].filter(Boolean);
  return leaf(kind, find(text, labels), n.enum);
}

function find(text: string, labels: string[]): string | undefined {
  for (const label of labels) {
    const words = label.split(/[\s_\-.]+|(?<=[a-z])(?=[A-Z])/).filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    if (!words.length) continue;
    const m = new RegExp(`${words.join('[\\s_-]*')}\\s*(?:[:#=]|no\\.?)\\s*([^\\n]+)`, 'i').exec(text);
    if (m) return m[1].trim();
  }
  return undefined;
}

function leaf(kind: string, found: string | undefined, enumValues?: unknown): unknown {
  if (found === undefined) return kind === 'currency' ? { amount: null, iso_4217_currency_code: null } : null;
  switch (kind) {
    case 'number': {
      const m = /-?\d[\d,]*(?:\.\d+)?/.exec(found);
      return m ? Number(m[0].replace(/,/g, '')) : null;
    }
    case 'currency': {
      const m = /-?\d[\d,]*(?:\.\d+)?/.exec(found);
      const code = /\b[A-Z]{3}\b/.exec(found);
      return { amount: m ? Number(m[0].replace(/,/g, '')) : null, iso_4217_currency_code: code ? code[0] : null };
    }
    case 'boolean':
      return /^(yes|true|x|y|1|checked)\b/i.test(found);
    case 'date': {
      const m = /\d{4}-\d{2}-\d{2}/.exec(found);
      return m ? m[0] : found;
    }
    case 'enum': {
      const values = (Array.isArray(enumValues) ? enumValues : []).map((e) => (isPlainObject(e) ? e.value : e)).filter((e) => typeof e === 'string') as string[];
      return values.find((v) => found.toLowerCase().includes(v.toLowerCase())) ?? null;
    }
    default:
      return found;
  }
}

function classifyByWords(config: Json, text: string): Json {
  const classes = (Array.isArray(config.classifications) ? config.classifications : []).filter(isPlainObject);
  const lower = text.toLowerCase();
  let best: Json | undefined;
  let bestScore = -1;
  for (const c of classes) {
    const words = [c.id, c.type, c.description].filter((x) => typeof x === 'string').join(' ').toLowerCase().split(/[^a-z0-9]+/).filter((x) => x.length > 2);
    const score = words.reduce((s, word) => s + (lower.includes(word) ? 1 : 0), 0);
    if (score > bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return best ? { id: String(best.id), type: String(best.type ?? best.id) } : { id: null, type: null };
}
