/**
 * Threads libvips (through sharp) uses for one image operation: decoding a
 * photo, resizing, encoding a crop. The engines already run one task per core
 * in their worker pools, so by default each operation keeps to its own thread:
 * on 2 cores, letting every decode spread over all cores cost the ID reader
 * 13% more CPU per card (thread hand-offs) for no gain in throughput.
 * The setting is process-wide (libvips has one thread pool); its default
 * (1) is `SAOLA_IMAGE_THREADS` in platform/config.ts.
 */
import sharp from 'sharp';

/** `threads` 0: libvips's own default (one per core). */
export function setImageThreads(threads: number): void {
  sharp.concurrency(threads);
}
