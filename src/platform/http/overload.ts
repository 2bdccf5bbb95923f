import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import { serviceOfPath } from '../usage/services.js';
import { PlatformError } from './errors.js';

export interface OverloadSettings {
  /** Requests of one service being answered at once before the next is refused (0: no limit). */
  maxInFlight: number;
  /** Event-loop delay (ms) above which new requests are refused (0: not checked). */
  maxEventLoopDelayMs: number;
}

/** How often the event loop's delay is sampled. */
const TICK_MS = 20;
/** Weight of the newest sample in the smoothed delay: one pause (a GC, one long synchronous task) is not overload. */
const SMOOTHING = 0.25;

/**
 * Load shedding for every service route: a request is refused at once with
 * the platform's `busy` condition (each service answers its own 429, with
 * Retry-After) when its service already has `maxInFlight` requests being
 * answered, or when the event loop has been late by more than
 * `maxEventLoopDelayMs` (smoothed over its last turns).
 * The second is what protects the services that do their work on the event
 * loop (NLU and credit on SQLite, whose queries are synchronous): there, a
 * backlog waits in socket buffers where no counter sees it, and only the
 * loop's delay shows it. Work in worker pools is bounded by the pools' own
 * queues. The check runs before authentication and body parsing, so a
 * refusal costs little.
 */
export function installOverloadGuard(app: FastifyInstance, settings: OverloadSettings): { close(): void } {
  const inFlight = new Map<string, number>();
  let lastTick = performance.now();
  let delay = 0; // smoothed
  let timer: NodeJS.Timeout | undefined;
  if (settings.maxEventLoopDelayMs > 0) {
    const tick = () => {
      const now = performance.now();
      // One sample counts at most twice the limit, so a single long pause cannot trip the guard on its own.
      const sample = Math.min(2 * settings.maxEventLoopDelayMs, Math.max(0, now - lastTick - TICK_MS));
      delay = (1 - SMOOTHING) * delay + SMOOTHING * sample;
      lastTick = now;
      timer = setTimeout(tick, TICK_MS);
      timer.unref();
    };
    timer = setTimeout(tick, TICK_MS);
    timer.unref();
  }
  /**
   * Late: the smoothed delay is over the limit (the loop has been behind for several turns), or this very
   * turn has already run five times the limit (requests read now have waited at least that long).
   */
  const loopLate = () => delay > settings.maxEventLoopDelayMs || performance.now() - lastTick - TICK_MS > 5 * settings.maxEventLoopDelayMs;

  app.addHook('onRoute', (route) => {
    const service = serviceOfPath(route.url ?? route.path ?? '');
    if (!service) return;
    const guard: onRequestHookHandler = (request, reply, done) => {
      const busy = settings.maxInFlight > 0 && (inFlight.get(service) ?? 0) >= settings.maxInFlight;
      const late = settings.maxEventLoopDelayMs > 0 && loopLate();
      if (busy || late) {
        reply.header('retry-after', '1');
        return done(new PlatformError('busy', `The ${service} service is overloaded; try again shortly`));
      }
      inFlight.set(service, (inFlight.get(service) ?? 0) + 1);
      // 'close' comes once the answer is sent or the connection is gone, whichever way the request ends.
      reply.raw.once('close', () => inFlight.set(service, (inFlight.get(service) ?? 1) - 1));
      done();
    };
    const existing = route.onRequest === undefined ? [] : Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest];
    route.onRequest = [guard, ...existing];
  });
  return {
    close() {
      if (timer) clearTimeout(timer);
    },
  };
}
