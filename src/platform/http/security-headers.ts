import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Response headers that keep browsers from misusing our answers: no MIME
 * sniffing (an uploaded "image" is never run as script), no framing, no
 * referrer leaking capability links (/cmt/faces/..., TTS audio links) to other
 * sites, and API answers never cached by shared caches (they hold personal
 * data). A strict content policy goes on everything but the /docs page, whose
 * reference UI runs its own script and styles, and on audio and face images. A route that
 * sets its own policy keeps it (the console's page allows its own scripts and nothing else),
 * and still gets the other headers. HSTS belongs to whatever
 * terminates TLS in front of Saola (docs/security.md). Five fixed headers, so
 * no helmet dependency.
 */
export function securityHeaders(app: FastifyInstance): void {
  // Callback style: an async hook costs a promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    addSecurityHeaders(request, reply);
    done(null, payload);
  });
}

function addSecurityHeaders(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-content-type-options', 'nosniff');
  reply.header('x-frame-options', 'DENY');
  reply.header('referrer-policy', 'no-referrer');
  // Answered before the body was read (too large, malformed, refused early): the rest of the
  // upload would hold the connection, and a server shutdown, until the keep-alive timeout (72 s).
  if (!request.raw.complete) reply.header('connection', 'close');
  if (request.url.startsWith('/docs')) return;
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  // Audio and face crops opened straight in a browser tab play and show without it.
  if (!reply.hasHeader('content-security-policy') && !/^(audio|image)\//.test(String(reply.getHeader('content-type') ?? ''))) {
    reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'; sandbox");
  }
}
