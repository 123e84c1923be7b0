import type { Site } from './detect.js';
import type { Member } from './members.js';
import { STEP_2025_04_21 } from './step-2025-04-21.js';
import { STEP_2026_02_09 } from './step-2026-02-09.js';
import { LAYOUTS, layoutIndex, type Dropped, type Finding, type Inference, type Layout, type ProcessorType } from './types.js';

/** A key dropped by a step, with its path in the config the step was given. */
export interface Lossy extends Dropped {
  path: ReadonlyArray<string | number>;
  /** The INFERRED mapping that would keep it (`--infer`). */
  infer?: Inference;
}

export interface StepDraft {
  members: Member[];
  lossy: Lossy[];
  warnings: Finding[];
}

export interface StepOptions {
  infer: ReadonlySet<Inference>;
  /** A partial config (a run's overrideConfig): no `type` added, no required member asked for. */
  partial?: boolean;
  /** Convert a fields-form EXTRACT config to a schema going up (fields-schema.ts) instead of refusing it. */
  convertFields?: boolean;
}

/**
 * One step of the chain of layouts: the key changes between two adjacent layouts, both ways, and
 * the evidence that tells them apart. Adding a layout is one more step module (its table and its
 * table test) appended to STEPS, and the layout appended to LAYOUTS.
 */
export interface Step {
  lower: Layout;
  upper: Layout;
  /** Paths of the keys of `config` that exist at `lower` (or before) and not at `upper`. */
  lowerEvidence(config: Record<string, unknown>, type: ProcessorType): ReadonlyArray<readonly string[]>;
  /** Paths of the keys of `config` that exist at `upper` (or after) and not at `lower`. */
  upperEvidence(config: Record<string, unknown>, type: ProcessorType): ReadonlyArray<readonly string[]>;
  up(config: Record<string, unknown>, type: ProcessorType, site: Site, opts: StepOptions): StepDraft;
  down(config: Record<string, unknown>, type: ProcessorType, site: Site, opts: StepOptions): StepDraft;
}

/** STEPS[i] goes from LAYOUTS[i] to LAYOUTS[i + 1]. */
export const STEPS: readonly Step[] = [STEP_2025_04_21, STEP_2026_02_09];

/** The steps from one layout to another, in the order they apply, each with its direction. */
export function stepsBetween(from: Layout, to: Layout): Array<{ step: Step; dir: 'up' | 'down' }> {
  const a = layoutIndex(from);
  const b = layoutIndex(to);
  const out: Array<{ step: Step; dir: 'up' | 'down' }> = [];
  if (a < b) for (let i = a; i < b; i++) out.push({ step: STEPS[i], dir: 'up' });
  else for (let i = a - 1; i >= b; i--) out.push({ step: STEPS[i], dir: 'down' });
  return out;
}

// Checked once: the chain and the list of layouts must agree.
for (let i = 0; i < STEPS.length; i++) {
  if (STEPS[i].lower !== LAYOUTS[i] || STEPS[i].upper !== LAYOUTS[i + 1]) throw new Error(`step ${i} does not join ${LAYOUTS[i]} and ${LAYOUTS[i + 1]}`);
}
