// `evalkit processors` on API version 2026-02-09 against the stub (the cases: test/helpers/processors-2026-cases.ts;
// the same cases against the real sandbox: processors-2026-sandbox.test.ts).
import { BACKENDS, processors2026Suite } from '../helpers/processors-2026-cases.js';

processors2026Suite(BACKENDS[0]);
