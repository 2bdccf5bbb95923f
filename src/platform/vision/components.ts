/** A connected region of pixels: its id (the value in the label image) and bounding box (inclusive). */
export interface Component {
  id: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Connected components of the pixels `inside` says belong (4- or 8-connected) of a `w` x `h` image, found by
 * flood fill in scan order. `labels` holds each pixel's component id, -1 outside every component; `onPixel`
 * sees every pixel of a component as it is reached (to sum values over it, say).
 */
export function connectedComponents(
  inside: (i: number) => boolean,
  w: number,
  h: number,
  connectivity: 4 | 8,
  onPixel?: (i: number, id: number) => void,
): { components: Component[]; labels: Int32Array } {
  const labels = new Int32Array(w * h).fill(-1);
  const components: Component[] = [];
  const stack: number[] = [];
  const reach = connectivity === 8 ? 1 : 0;
  for (let start = 0; start < w * h; start++) {
    if (labels[start] !== -1 || !inside(start)) continue;
    const c: Component = { id: components.length, x0: w, y0: h, x1: -1, y1: -1 };
    labels[start] = c.id;
    stack.push(start);
    while (stack.length > 0) {
      const p = stack.pop()!;
      const x = p % w;
      const y = (p - x) / w;
      if (x < c.x0) c.x0 = x;
      if (x > c.x1) c.x1 = x;
      if (y < c.y0) c.y0 = y;
      if (y > c.y1) c.y1 = y;
      onPixel?.(p, c.id);
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          // 4-connected: the four side neighbours only; 8-connected: the corners too.
          if ((dx === 0) === (dy === 0) && (dx === 0 || !reach)) continue;
          const nx = x + dx;
          const ny = y + dy;
          if (nx < 0 || ny < 0 || nx >= w || ny >= h) continue;
          const q = ny * w + nx;
          if (labels[q] === -1 && inside(q)) {
            labels[q] = c.id;
            stack.push(q);
          }
        }
      }
    }
    components.push(c);
  }
  return { components, labels };
}
