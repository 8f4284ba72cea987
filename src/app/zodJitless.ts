/**
 * zod's fast path probes `new Function` once, which the App's CSP (no `'unsafe-eval'`) refuses and
 * reports as a violation: the Panel App parses without it. Imported first, before any schema is
 * made or parsed (and used, so that the build, where modules have no side effects, keeps it).
 */
import { z } from 'zod';

/** True once zod is set to parse without `new Function`. */
export const ZOD_JITLESS: boolean = z.config({ jitless: true }).jitless === true;
