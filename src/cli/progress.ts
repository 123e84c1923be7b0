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
  const phaseStart = phases(started);
  return {
    update: (p) => {
      const t = now();
      const since = phaseStart(p.label, t);
      if (t - lastAt < interval) return;
      lastAt = t;
      const counts = p.total > 0 ? `${p.value}/${p.total}` : `${p.value}`;
      const rate = p.unit ? ` ${p.unit} (${perSecond(p.value, t - since)}/s)` : '';
      write(`${p.label}: ${counts}${rate}${p.detail ? `, ${p.detail}` : ''} (${fmtDuration(t - started)})`);
    },
    stop: () => undefined,
  };
}

/**
 * When the current phase began: a new label (scoring, then report.html) starts a new phase, so
 * that a rate counts the phase's own units over its own time.
 */
function phases(start: number): (label: string, t: number) => number {
  let label: string | undefined;
  let since = start;
  return (l, t) => {
    if (label !== undefined && l !== label) since = t;
    label = l;
    return since;
  };
}

function perSecond(value: number, ms: number): string {
  return ms > 0 ? ((value * 1000) / ms).toFixed(1) : '0';
}

/**
 * The bar's line: a bar and `value/total` when the total is known, with an ETA once something is
 * done; the count alone while the total is not known (a full bar, `1000/0` and `ETA 0s` said the
 * opposite of what was going on, and an ETA before the first unit read `NFs`). The detail only
 * when there is one.
 */
export function barFormat(total: number, value: number, detail: string): string {
  const counts = total > 0 ? `{label} [{bar}] {value}/{total}{rate}${value > 0 ? ' | ETA {eta_formatted}' : ''}` : '{label} {value}{rate}';
  return `${counts}${detail ? ' | {detail}' : ''} | {duration_formatted}`;
}

function barReporter(): ProgressReporter {
  const started = performance.now();
  let bar: SingleBar | undefined;
  let last: ProgressState | undefined;
  let stopped = false;
  let drawing: string | undefined;
  const phaseStart = phases(started);
  const render = (p: ProgressState): void => {
    if (!bar) return;
    const t = performance.now();
    const rate = p.unit ? ` ${p.unit} | ${perSecond(p.value, t - phaseStart(p.label, t))}/s` : '';
    // Drawn from the first state on (an empty line before it, " 0 | 0s", said nothing), and
    // started again for each phase: its own duration and ETA.
    if (drawing !== p.label) {
      if (drawing !== undefined) bar.stop();
      drawing = p.label;
      bar.start(p.total, p.value, { label: p.label, detail: p.detail, rate });
      return;
    }
    bar.setTotal(p.total);
    bar.update(p.value, { label: p.label, detail: p.detail, rate });
  };
  // Loaded on first use so that short commands never pay for it.
  const loading = import('cli-progress').then(({ default: cp }) => {
    if (stopped) return;
    bar = new cp.SingleBar({
      format: (options, params, payload: { detail?: string }) => cp.Format.Formatter({ ...options, format: barFormat(params.total, params.value, payload.detail ?? '') }, params, payload),
      etaBuffer: 50,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    });
    if (last) render(last);
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
