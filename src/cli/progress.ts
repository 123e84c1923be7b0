/**
 * Progress on stderr for long commands: a bar (cli-progress) on a terminal, and elsewhere (CI
 * logs) a plain line every few seconds, so logs stay short and still show that work goes on.
 */
import type { SingleBar } from 'cli-progress';
import { redact } from '../util/secrets.js';
import { escapeControls } from './io.js';
import { isQuiet } from './style.js';

export interface ProgressState {
  /** What is going on: "runs", "batch", "collect". */
  label: string;
  value: number;
  /** 0 when not known yet. */
  total: number;
  /** Short free text after the counts. */
  detail: string;
  /** What is counted ("items", "rows"): when given, the rate per second is shown too. */
  unit?: string;
}

export interface ProgressReporter {
  update(p: ProgressState): void;
  stop(): void;
}

export interface ProgressOptions {
  enabled: boolean;
  /** Default: whether stderr is a terminal. */
  tty?: boolean;
  /** Pause between plain lines; default 5 s. */
  intervalMs?: number;
  /** Test hooks. */
  now?: () => number;
  write?: (line: string) => void;
}

export function fmtDuration(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

export function progressReporter(opts: ProgressOptions): ProgressReporter {
  if (!opts.enabled || isQuiet()) return { update: () => undefined, stop: () => undefined };
  const now = opts.now ?? (() => performance.now());
  const started = now();
  if (opts.tty ?? process.stderr.isTTY) return barReporter();
  const write = opts.write ?? ((line: string) => process.stderr.write(escapeControls(redact(line)) + '\n'));
  const interval = opts.intervalMs ?? 5000;
  let lastAt = started;
  return {
    update: (p) => {
      const t = now();
      if (t - lastAt < interval) return;
      lastAt = t;
      const counts = p.total > 0 ? `${p.value}/${p.total}` : `${p.value}`;
      const rate = p.unit ? ` ${p.unit} (${perSecond(p.value, t - started)}/s)` : '';
      write(`${p.label}: ${counts}${rate}${p.detail ? `, ${p.detail}` : ''} (${fmtDuration(t - started)})`);
    },
    stop: () => undefined,
  };
}

function perSecond(value: number, ms: number): string {
  return ms > 0 ? ((value * 1000) / ms).toFixed(1) : '0';
}

function barReporter(): ProgressReporter {
  const started = performance.now();
  let bar: SingleBar | undefined;
  let last: ProgressState | undefined;
  let stopped = false;
  const render = (p: ProgressState): void => {
    if (!bar) return;
    bar.setTotal(p.total);
    const rate = p.unit ? ` ${p.unit} | ${perSecond(p.value, performance.now() - started)}/s` : '';
    bar.update(p.value, { label: p.label, detail: p.detail, rate });
  };
  // Loaded on first use so that short commands never pay for it.
  const loading = import('cli-progress').then(({ default: cp }) => {
    if (stopped) return;
    bar = new cp.SingleBar({
      format: '{label} [{bar}] {value}/{total}{rate} | ETA {eta_formatted} | {detail} | {duration_formatted}',
      etaBuffer: 50,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    });
    bar.start(last?.total ?? 0, last?.value ?? 0, { label: last?.label ?? '', detail: last?.detail ?? '', rate: '' });
  });
  void loading;
  return {
    update: (p) => {
      last = p;
      render(p);
    },
    stop: () => {
      stopped = true;
      bar?.stop();
    },
  };
}
