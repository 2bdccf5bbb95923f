import http from 'node:http';
import { guardedFetch, isPublicAddress, FetchGuardError } from '../../src/platform/fetch-guard.js';
const srv = http.createServer((req, res) => { if (req.url === '/r') { res.writeHead(302, { location: 'http://127.0.0.1:' + port + '/ok' }); res.end(); return; } if (req.url==='/big'){res.end(Buffer.alloc(2000));return;} res.end('hello'); });
await new Promise<void>(r => srv.listen(0, '127.0.0.1', () => r()));
const port = (srv.address() as any).port;
for (const [u, o] of [[`http://127.0.0.1:${port}/ok`, {}], [`http://localhost:${port}/ok`, {}], [`http://[::ffff:127.0.0.1]:${port}/`, {}], [`http://127.0.0.1:${port}/r`, { allowPrivate: true }], [`http://127.0.0.1:${port}/big`, { allowPrivate: true, maxBytes: 100 }], ['file:///etc/passwd', {}], ['http://10.1.1.1/', {timeoutMs: 500}], [`http://localhost:${port}/ok`, {allowPrivate:true}]] as const) {
  try { const r = await guardedFetch(u, o as any); console.log(u, r.status, r.body.toString().slice(0, 20)); } catch (e) { console.log(u, (e as FetchGuardError).reason, (e as Error).message); }
}
console.log(isPublicAddress('8.8.8.8'), isPublicAddress('::1'), isPublicAddress('169.254.169.254'), isPublicAddress('2606:4700::1111'), isPublicAddress('::ffff:7f00:1'));
srv.close();
