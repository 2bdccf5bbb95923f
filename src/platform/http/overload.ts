import type { ServerResponse } from 'node:http';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import type { ServicePaths } from '../service-paths.js';
import { PlatformError } from './errors.js';

export interface OverloadSettings {
  /** Requests of one service being answered at once before the next is refused (0: no limit). */
  maxInFlight: number;
  /** Event-loop delay (ms) above which new requests are refused (0: not checked). */
  maxEventLoopDelayMs: number;
}

const SERVICE = Symbol('saola.inFlightService');
type CountedResponse = ServerResponse & { [SERVICE]?: string };

/** How often the event loop marks its progress. */
const TICK_MS = 20;

/**
 * Load shedding for every service route: a request is refused at once with
 * the platform's `busy` condition (each service answers its own 429, with
 * Retry-After) when its service already has `maxInFlight` requests being
 * answered, or when the event loop is more than `maxEventLoopDelayMs` late,
 * that is when the current turn of the loop has run that long since a
 * timer last fired. The second is what protects the services that work on
 * the event loop (NLU and credit on SQLite, whose queries are synchronous):
 * their backlog waits in socket buffers where no counter sees it, and a turn
 * of the loop then reads hundreds of requests; refusing the rest of a turn
 * once it is late keeps every turn, and so every admitted request's wait,
 * short. Work in worker pools is bounded by the pools' own queues. The check
 * runs before authentication and before the body is read.
 */
export function installOverloadGuard(app: FastifyInstance, settings: OverloadSettings, paths: ServicePaths): { close(): void } {
  const inFlight = new Map<string, number>();
  let lastTick = performance.now();
  let timer: NodeJS.Timeout | undefined;
  if (settings.maxEventLoopDelayMs > 0) {
    const tick = () => {
      lastTick = performance.now();
      timer = setTimeout(tick, TICK_MS);
      timer.unref();
    };
    tick();
  }
  const loopLate = () => performance.now() - lastTick - TICK_MS > settings.maxEventLoopDelayMs;

  // A root hook, so it runs before the services' own hooks (authentication): a refusal costs little. Its error is
  // answered by the matched route's error handler, so each service renders its own 429.
  const guard: onRequestHookHandler = (request, reply, done) => {
    const service = paths.serviceOf(request.url);
    if (!service) return done();
    const busy = settings.maxInFlight > 0 && (inFlight.get(service) ?? 0) >= settings.maxInFlight;
    const late = settings.maxEventLoopDelayMs > 0 && loopLate();
    if (busy || late) {
      reply.header('retry-after', '1');
      return done(new PlatformError('busy', `The ${service} service is overloaded; try again shortly`));
    }
    inFlight.set(service, (inFlight.get(service) ?? 0) + 1);
    // 'close' comes once the answer is sent or the connection is gone, whichever way the request ends, and
    // only once: one shared listener, no closure or once-wrapper per request.
    (reply.raw as CountedResponse)[SERVICE] = service;
    reply.raw.on('close', countDown);
    done();
  };
  function countDown(this: CountedResponse): void {
    const service = this[SERVICE]!;
    inFlight.set(service, (inFlight.get(service) ?? 1) - 1);
  }
  app.addHook('onRequest', guard);
  return {
    close() {
      if (timer) clearTimeout(timer);
    },
  };
}
