// `evalkit processors` on API version 2026-02-09 against the real sandbox (the cases: test/helpers/processors-2026-cases.ts;
// the same cases against the stub: processors-2026.test.ts).
import { BACKENDS, processors2026Suite } from '../helpers/processors-2026-cases.js';

processors2026Suite(BACKENDS[1]);
