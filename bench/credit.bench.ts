import os from 'node:os';
import { Readable } from 'node:stream';
import { readCsv } from '../src/credit/csv.js';
import { importAlphaEvents } from '../src/credit/import.js';
import { createCreditParts } from '../src/credit/index.js';
import { loadCreditConfig } from '../src/credit/config.js';
import { buildDefaultModels } from '../src/credit/model/default-models.js';
import { CreditStore } from '../src/credit/store.js';
import { eventsCsv, generatePopulation, outcomesCsv } from '../src/credit/synthetic.js';
import { trainFromOutcomes } from '../src/credit/training.js';
import { startTestApp } from '../fixtures/servers/app.js';
import type { BenchRow } from './harness.js';

const PEOPLE = 3000;
const REQUESTS = 3000;
const CONCURRENCY = 16;

/** Credit scoring: import throughput, training time, and GET /dmp/creditscoring/v1 over loopback (SQLite). */
export default async function bench(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const app = await startTestApp();
  try {
    const people = generatePopulation({ seed: 5, people: PEOPLE });
    const csv = [...eventsCsv(people)].join('');
    const events = people.reduce((s, p) => s + p.events.length, 0);
    let t = performance.now();
    await importAlphaEvents(CreditStore.over(app.deps.store.db), app.appCode, () => readCsv(Readable.from([Buffer.from(csv)])), { fileName: 'bench.csv' });
    let seconds = (performance.now() - t) / 1000;
    rows.push({ benchmark: `credit import alpha (${events} events, sqlite)`, metric: 'throughput', value: events / seconds, unit: 'rows/s' });

    const parts = createCreditParts(app.deps.store, loadCreditConfig());
    t = performance.now();
    await trainFromOutcomes(parts, app.appCode, 'alpha', readCsv(Readable.from([Buffer.from([...outcomesCsv(people)].join(''))])), { fileName: 'bench' });
    rows.push({ benchmark: `credit train alpha (${PEOPLE} outcomes, 2 dltypes)`, metric: 'wall time', value: (performance.now() - t) / 1000, unit: 's' });

    t = performance.now();
    buildDefaultModels();
    rows.push({ benchmark: 'credit default models (30k synthetic people)', metric: 'wall time', value: (performance.now() - t) / 1000, unit: 's' });

    const latencies: number[] = [];
    let next = 0;
    const worker = async () => {
      while (next < REQUESTS) {
        const p = people[next++ % people.length];
        const url = `${app.url}/dmp/creditscoring/v1?phone=0${p.phone.slice(2)}&dltype=${p.dltype}&decision_time=${Math.floor(p.decisionTime.getTime() / 1000)}`;
        const start = performance.now();
        const res = await fetch(url, { headers: { api_key: app.apiKey } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        latencies.push(performance.now() - start);
      }
    };
    t = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    seconds = (performance.now() - t) / 1000;
    latencies.sort((a, b) => a - b);
    const label = `GET /dmp/creditscoring/v1 (sqlite, ${CONCURRENCY} concurrent)`;
    rows.push({ benchmark: label, metric: 'throughput', value: REQUESTS / seconds, unit: 'req/s' });
    rows.push({ benchmark: label, metric: 'p50 latency', value: latencies[Math.floor(latencies.length * 0.5)], unit: 'ms' });
    rows.push({ benchmark: label, metric: 'p99 latency', value: latencies[Math.floor(latencies.length * 0.99)], unit: 'ms', note: `${os.cpus().length} cores` });
  } finally {
    await app.close();
  }
  return rows;
}
