import fs from 'node:fs';
import path from 'node:path';
import { startTestApp } from '../fixtures/servers/app.js';
import type { BenchRow } from './harness.js';
import { processTreeCpuSeconds } from '../eval/support/cpu.js';

const FIXTURES = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'reader');
const REQUESTS = 24;
const CONCURRENCY = 2;

/** POST /vision/idr/vnm over loopback on the committed card photos: latency and throughput. */
export default async function bench(): Promise<BenchRow[]> {
  const app = await startTestApp();
  const images = ['chip-front.jpg', 'cccd12-front.jpg', 'cmnd09-front.jpg', 'chip-back.jpg'].map((f) => fs.readFileSync(path.join(FIXTURES, f)));
  const post = async (i: number) => {
    const form = new FormData();
    form.append('image', new Blob([new Uint8Array(images[i % images.length])], { type: 'image/jpeg' }), 'card.jpg');
    const t = performance.now();
    const res = await fetch(`${app.url}/vision/idr/vnm`, { method: 'POST', body: form, headers: { api_key: app.apiKey } });
    const body = (await res.json()) as { errorCode: number };
    if (body.errorCode !== 0) throw new Error(`errorCode ${body.errorCode}`);
    return performance.now() - t;
  };
  try {
    await post(0); // warm-up: worker threads load OpenCV
    const latencies: number[] = [];
    let next = 0;
    const start = performance.now();
    const cpuStart = processTreeCpuSeconds();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < REQUESTS) latencies.push(await post(next++));
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    const cpu = processTreeCpuSeconds() - cpuStart;
    latencies.sort((a, b) => a - b);
    const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    return [
      { benchmark: `POST /vision/idr/vnm (${CONCURRENCY} concurrent)`, metric: 'throughput', value: REQUESTS / seconds, unit: 'cards/s' },
      { benchmark: 'POST /vision/idr/vnm', metric: 'p50 latency', value: p(0.5), unit: 'ms' },
      { benchmark: 'POST /vision/idr/vnm', metric: 'p95 latency', value: p(0.95), unit: 'ms' },
      // The server's process and its Tesseract children, over the timed requests only (the warm-up and start-up left out).
      { benchmark: 'POST /vision/idr/vnm', metric: 'CPU per card', value: cpu / REQUESTS, unit: 's', goal: '<= 0.8', note: 'process + child processes' },
    ];
  } finally {
    await app.close();
  }
}
