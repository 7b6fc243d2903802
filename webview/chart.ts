/**
 * The scoreboard's chart: cumulative tokens saved per day as a small inline SVG drawn with DOM calls (no chart
 * library, no markup strings). One point per day that had events, evenly spaced, with the area under the line;
 * a single day has no line to fill under, so it is one marked point with its value written beside it.
 */
import { formatInt, svg } from './dom';

export interface ChartPoint { day: string; cumulative: number }

const W = 480;
const H = 160;
const PAD = { left: 56, right: 12, top: 12, bottom: 24 };

export function savingsChart(points: ChartPoint[]): SVGSVGElement {
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'img', class: 'chart', preserveAspectRatio: 'xMidYMid meet' });
  root.appendChild(svg('title', {}, 'Cumulative tokens saved per day'));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  root.appendChild(svg('line', { x1: PAD.left, y1: PAD.top + plotH, x2: PAD.left + plotW, y2: PAD.top + plotH, class: 'axis' }));
  root.appendChild(svg('line', { x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: PAD.top + plotH, class: 'axis' }));
  if (!points.length) {
    root.appendChild(svg('text', { x: W / 2, y: H / 2, 'text-anchor': 'middle', class: 'chart-empty' }, 'No savings recorded yet'));
    return root;
  }
  const max = Math.max(1, ...points.map((p) => p.cumulative));
  const x = (i: number) => PAD.left + (points.length === 1 ? plotW / 2 : (i / (points.length - 1)) * plotW);
  const y = (v: number) => PAD.top + plotH - (Math.max(0, v) / max) * plotH;
  if (points.length > 1) {
    const line = points.map((p, i) => `${x(i).toFixed(1)},${y(p.cumulative).toFixed(1)}`).join(' ');
    root.appendChild(svg('polygon', { points: `${PAD.left},${PAD.top + plotH} ${line} ${x(points.length - 1).toFixed(1)},${PAD.top + plotH}`, class: 'area' }));
    root.appendChild(svg('polyline', { points: line, class: 'series', fill: 'none' }));
  } else {
    // One day: a dashed guide from the axis to the point, and the figure itself (a block of area would say nothing).
    const p = points[0]!;
    root.appendChild(svg('line', { x1: PAD.left, y1: y(p.cumulative), x2: x(0), y2: y(p.cumulative), class: 'guide' }));
    root.appendChild(svg('text', { x: x(0) + 8, y: y(p.cumulative) + 4, class: 'value' }, `${formatInt(p.cumulative)} tokens on ${p.day}`));
  }
  points.forEach((p, i) => {
    const dot = svg('circle', { cx: x(i), cy: y(p.cumulative), r: points.length === 1 ? 5 : 3, class: 'dot', 'data-day': p.day, 'data-value': p.cumulative });
    dot.appendChild(svg('title', {}, `${p.day}: ${formatInt(p.cumulative)} tokens saved so far`));
    root.appendChild(dot);
  });
  root.appendChild(svg('text', { x: PAD.left - 6, y: PAD.top + 4, 'text-anchor': 'end', class: 'label' }, compact(max)));
  root.appendChild(svg('text', { x: PAD.left - 6, y: PAD.top + plotH, 'text-anchor': 'end', class: 'label' }, '0'));
  root.appendChild(svg('text', { x: points.length === 1 ? x(0) : PAD.left, y: H - 6, 'text-anchor': points.length === 1 ? 'middle' : 'start', class: 'label' }, points[0]!.day));
  if (points.length > 1) root.appendChild(svg('text', { x: PAD.left + plotW, y: H - 6, 'text-anchor': 'end', class: 'label' }, points.at(-1)!.day));
  return root;
}

function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}
