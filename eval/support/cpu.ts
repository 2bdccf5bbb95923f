/** CPU accounting for the reader's evaluations: this process, and the Tesseract processes it runs. */
import fs from 'node:fs';
import type { OcrEngine } from '../../src/reader/pipeline/ocr.js';

/** Clock ticks of user + system CPU in a /proc/<pid>/stat line: the process's own, or (children) of its reaped children. */
function statTicks(pid: number | 'self', children = false): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return children ? Number(fields[13]) + Number(fields[14]) : Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0; // the process has just ended: its time is in the parent's children ticks
  }
}

/** This process's CPU seconds (the reader's own work, all threads). */
export function ownCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** CPU seconds of the Tesseract processes: the finished ones (one-shot runs) and the long-lived ones still running. */
export function ocrCpuSeconds(ocr: Pick<OcrEngine, 'pids'>): number {
  const live = (ocr.pids?.() ?? []).reduce((sum, pid) => sum + statTicks(pid), 0);
  return (statTicks('self', true) + live) / 100;
}

/** Ids of this process's live child processes (every thread's: the reader's worker threads start Tesseract). */
function childPids(): number[] {
  try {
    return fs.readdirSync('/proc/self/task').flatMap((t) => {
      try {
        return fs.readFileSync(`/proc/self/task/${t}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

/** CPU seconds of this process and every child it ran (ended ones and those still running), for a server in this process. */
export function processTreeCpuSeconds(): number {
  const live = childPids().reduce((sum, pid) => sum + statTicks(pid), 0);
  return ownCpuSeconds() + (statTicks('self', true) + live) / 100;
}
