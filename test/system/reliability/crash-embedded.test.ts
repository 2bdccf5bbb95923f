/**
 * Crash safety on the embedded default (SQLite, the SQL job table, blob files): the full matrix of
 * test/support/reliability/crash.ts, three rounds of writes killed with SIGKILL at random moments, each round
 * after the first starting on what the previous kill left (recovery itself killed).
 */
import { crashSuite } from '../../support/reliability/crash.js';

crashSuite('embedded', 3);
