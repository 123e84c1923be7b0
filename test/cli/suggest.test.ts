import { describe, expect, it } from 'vitest';
import { configMemberHints, flagSuggestions, tokenVariableHint } from '../../src/cli/suggest.js';
import { main } from '../../src/cli/main.js';

const REPORT = ['help', 'version', 'quiet', 'q', 'from', 'format', 'out-dir', 'outDir', 'step-summary', 'baseline', 'config-file', 'dataset'];

describe('did you mean', () => {
  it.each([
    [['report', '--fromm', 'x.json'], ['--fromm: did you mean --from?']],
    [['report', '--fromm=x.json'], ['--fromm: did you mean --from?']],
    [['report', '--out-dirr', 'x'], ['--out-dirr: did you mean --out-dir?']],
    [['report', '--outDirr', 'x'], ['--outDirr: did you mean --out-dir?']],
    [['report', '--no-step-summaryy'], ['--no-step-summaryy: did you mean --no-step-summary?']],
    [['report', '--basline', 'b.json', '--fromm', 'x'], ['--basline: did you mean --baseline?', '--fromm: did you mean --from?']],
    // Two letters swapped is one slip (as far from --from as --format was by edits).
    [['report', '--form', 'x.json'], ['--form: did you mean --from?']],
    // Nothing close, a known flag, a negated known flag, a stray word, a negative number: no hint.
    [['report', '--zzzzzz'], []],
    [['report', '--from', 'x', '--no-step-summary', 'extra', '-1'], []],
  ])('%j -> %j', (args, want) => {
    expect(flagSuggestions(REPORT, args)).toEqual(want);
  });

  it('through the CLI, for every command: exit 2, the message and the hint', async () => {
    const lines: string[] = [];
    const savedToken = process.env.EVALKIT_API_TOKEN;
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      expect(await main(['report', '--fromm', 'x.json'])).toBe(2);
      expect(await main(['eval', 'run', '--evaluation-sett', 'ev_1'])).toBe(2);
      expect(await main(['migrate', 'x.json', '--writee'])).toBe(2);
      delete process.env.EVALKIT_API_TOKEN;
      process.env.EVALKIT_API_KEY = 'sk_live_notprinted';
      expect(await main(['processors', 'list', '--base-url', 'http://127.0.0.1:9'])).toBe(2);
    } finally {
      process.stderr.write = write;
      delete process.env.EVALKIT_API_KEY;
      if (savedToken !== undefined) process.env.EVALKIT_API_TOKEN = savedToken;
    }
    const text = lines.join('');
    expect(text).toContain('Unknown argument: fromm\n  hint: --fromm: did you mean --from?');
    expect(text).toContain('Missing required argument: evaluation-set\n  hint: --evaluation-sett: did you mean --evaluation-set?; pass --evaluation-set, or set "evaluationSet" in the dataset\'s section of evalkit.config.json');
    expect(text).toContain('--writee: did you mean --write?');
    expect(text).toContain('evalkit: warning: EVALKIT_API_KEY is set, but evalkit reads the API token from EVALKIT_API_TOKEN only');
    expect(text).not.toContain('sk_live_notprinted');
  });
});

describe('a required option the config file can give', () => {
  const CONFIG = ' in the dataset\'s section of evalkit.config.json (evalkit init writes one; evalkit config show prints what applies)';
  it.each([
    ['Missing required argument: evaluation-set', ['eval', 'run'], ['pass --evaluation-set, or set "evaluationSet"' + CONFIG]],
    ['Missing required argument: evaluation-set', ['dataset', 'download', '--out', 'x.csv'], ['pass --evaluation-set, or set "evaluationSet"' + CONFIG]],
    ['Missing required arguments: from, baseline', ['report', '--bootstrap', '0'], ['pass --from, or set "export"' + CONFIG, 'pass --baseline, or set "baseline"' + CONFIG]],
    // An option no member gives, another command, another message: no hint.
    ['Missing required argument: release', ['processors', 'publish', 'ex_1'], []],
    ['Missing required argument: evaluation-set', ['evaluation', 'run'], []],
    ['Unknown argument: evaluation-set', ['eval', 'run'], []],
  ])('%s (%j)', (msg, args, hints) => {
    expect(configMemberHints(msg, args)).toEqual(hints);
  });
});

describe('a token in a variable evalkit does not read', () => {
  it('EVALKIT_API_KEY set, EVALKIT_API_TOKEN not: a warning naming the variable, never its value', () => {
    const hint = tokenVariableHint({ EVALKIT_API_KEY: 'sk_live_secret' });
    expect(hint).toBe('EVALKIT_API_KEY is set, but evalkit reads the API token from EVALKIT_API_TOKEN only: rename it (export EVALKIT_API_TOKEN="$EVALKIT_API_KEY")');
    expect(hint).not.toContain('sk_live_secret');
    expect(tokenVariableHint({ EVALKIT_TOKEN: 'a', EVALKIT_API_KEY: 'b' })).toMatch(/^EVALKIT_API_KEY and EVALKIT_TOKEN are set/);
  });

  it('no warning when EVALKIT_API_TOKEN is set, or no look-alike is', () => {
    expect(tokenVariableHint({ EVALKIT_API_KEY: 'x', EVALKIT_API_TOKEN: 'y' })).toBeUndefined();
    expect(tokenVariableHint({ EVALKIT_API_KEY: ' ' })).toBeUndefined();
    expect(tokenVariableHint({})).toBeUndefined();
  });
});
