// findVersion: what `processors diff ID V1 V2` makes of V1 and V2, and what it says when a reference names no version of ID.
import { describe, expect, it } from 'vitest';
import { findVersion } from '../../src/processors/index.js';
import { InputError, UsageError } from '../../src/util/errors.js';

const versions = [
  { version: 'draft', id: 'exv_d' },
  { version: '1.1', id: 'exv_b' },
  { version: '1.0', id: 'exv_a' },
];
const refused = (ref: string): InputError => {
  try {
    findVersion(versions, ref, 'ex_A');
  } catch (e) {
    return e as InputError;
  }
  throw new Error(`${ref} was found`);
};
const LISTED = 'the versions of ex_A: draft (exv_d), 1.1 (exv_b), 1.0 (exv_a) (`evalkit processors versions ex_A`)';

describe('findVersion', () => {
  it('draft, latest, a number (a third part 0 names the same version), a version id of the processor', () => {
    expect(findVersion(versions, 'draft', 'ex_A').id).toBe('exv_d');
    expect(findVersion(versions, 'latest', 'ex_A').id).toBe('exv_b');
    expect(findVersion(versions, '1', 'ex_A').id).toBe('exv_a');
    expect(findVersion(versions, '1.0.0', 'ex_A').id).toBe('exv_a');
    expect(findVersion(versions, '1.1.0', 'ex_A').id).toBe('exv_b');
    expect(findVersion(versions, 'exv_b', 'ex_A').id).toBe('exv_b');
  });

  it("a version id of another processor is said to be one (not \"not a version\"), listing this processor's versions", () => {
    const e = refused('exv_of_B');
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toBe('version exv_of_B is not a version of ex_A: it belongs to another extractor, or to none');
    expect(e.hint).toBe(LISTED);
    expect(refused('clv_1').message).toBe('version clv_1 is not a version of ex_A: it belongs to another classifier, or to none');
    expect(refused('dpv_1').message).toBe('version dpv_1 is not a version of ex_A: it belongs to another extractor, or to none');
  });

  it('a third part other than 0 names no version: said so, listing the versions', () => {
    const e = refused('1.0.1');
    expect(e).toBeInstanceOf(InputError);
    expect(e.message).toBe('"1.0.1" is not a version of ex_A: versions are numbered major.minor (1.0 and 1.0.0 name one version; a third part other than 0 names none)');
    expect(e.hint).toBe(LISTED);
  });

  it('a number it does not have, and a reference that is no version: both list the versions', () => {
    expect(refused('7.0').message).toBe('processor ex_A has no version "7.0"');
    expect(refused('7.0').hint).toBe(LISTED);
    const e = refused('newest');
    expect(e).toBeInstanceOf(UsageError);
    expect(e.message).toBe('"newest" is not a version');
    expect(e.hint).toBe(`use draft, latest, a published number such as 1.0, or a version id; ${LISTED}`);
  });
});
