/** Milliseconds per pipeline stage, reported with every reading (`timings`). */
export function stageTimer(): { timings: Record<string, number>; lap: (stage: string) => void } {
  const timings: Record<string, number> = {};
  let t = performance.now();
  return {
    timings,
    lap(stage) {
      const now = performance.now();
      timings[stage] = Math.round(now - t);
      t = now;
    },
  };
}
