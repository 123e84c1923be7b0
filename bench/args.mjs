// Flags of the benchmarks: `--name value`. numFlag for numbers, strFlag for text.
const args = process.argv.slice(2);

export function strFlag(name, dflt) {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
}

export function numFlag(name, dflt) {
  const v = strFlag(name, undefined);
  return v === undefined ? dflt : Number(v);
}

export const hasFlag = (name) => args.includes(`--${name}`);
