/**
 * Crash safety on PostgreSQL + Redis (BullMQ): the harness of test/support/reliability/crash.ts, with two rounds
 * where crash-embedded.test.ts runs three. The writes, the checks and the crash points are the engine-independent
 * harness's; what depends on the engine is whether each acknowledged write and each import's commit is durable,
 * and whether a restart recovers what a kill left (TTS requests without a job, staged import rows, jobs claimed
 * by the dead process). Each kind of crash point still comes on this engine: a server killed mid-write in every
 * service (twice), a restart on what a kill left killed again (the second round), and the credit imports' three
 * fates (killed at a random moment, killed once staged, run to the end: the harness keeps importing until each
 * has come). A third round would repeat those same kinds on the same engine; it costs a server start, a round
 * of writes and their TTS jobs.
 */
import { crashSuite } from '../../support/reliability/crash.js';

crashSuite('postgres+redis', 2);
