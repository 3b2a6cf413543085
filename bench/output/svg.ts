/**
 * `bench/results/latency.svg`, written by hand: per benchmark, the latency distribution of the
 * baseline and of Baton as box plots on one logarithmic time axis — whiskers p1–p99, box
 * p25–p75, a bar at p50 and a tick at p90 — with p50/p90/p99 written beside each.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatNs, quantile } from '../measure.ts';
import type { Row } from '../report.ts';

const WIDTH = 1240;
const LEFT = 360;
const PLOT_RIGHT = 930;
const TOP = 70;
const BAR = 22;
const GROUP_GAP = 16;
const COLORS = { baseline: '#8a8f98', baton: '#2563eb' };

interface Series {
  readonly label: string;
  readonly color: string;
  readonly p: Record<'p1' | 'p25' | 'p50' | 'p75' | 'p90' | 'p99', number>;
  readonly n: number;
}

export function latencySvg(rows: readonly Row[], subtitle: string): string {
  const groups = rows
    .filter(
      (r) => r.latencies && r.latencies.baseline.length > 0 && r.latencies.candidate.length > 0,
    )
    .map((row) => ({
      title: row.bench,
      series: [
        series('baseline', COLORS.baseline, row.latencies!.baseline),
        series('Baton', COLORS.baton, row.latencies!.candidate),
      ],
    }));
  const all = groups
    .flatMap((g) => g.series.flatMap((s) => [s.p.p1, s.p.p99]))
    .filter((v) => v > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all, 1e6)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all, 1e6 + 1)));
  const x = (ns: number) =>
    LEFT +
    ((Math.log10(Math.max(ns, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) *
      (PLOT_RIGHT - LEFT);
  const groupHeight = 20 + 2 * BAR + GROUP_GAP;
  const height = TOP + groups.length * groupHeight + 50;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="system-ui, -apple-system, 'Segoe UI', sans-serif" font-size="12" role="img" aria-labelledby="title">`,
    `<title id="title">Latency per operation, baseline vs Baton: ${escapeXml(subtitle)}</title>`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="20" y="26" font-size="17" font-weight="600">Latency per operation: baseline vs Baton (log scale)</text>`,
    `<text x="20" y="46" fill="#555">${escapeXml(subtitle)}</text>`,
  );
  // Grid: 1, 2, 5 × 10^k.
  const axisBottom = height - 40;
  for (let decade = lo; decade <= hi; decade *= 10) {
    for (const m of [1, 2, 5]) {
      const v = decade * m;
      if (v > hi) break;
      const gx = x(v);
      const major = m === 1;
      out.push(
        `<line x1="${gx.toFixed(1)}" y1="${TOP - 8}" x2="${gx.toFixed(1)}" y2="${axisBottom}" stroke="${major ? '#d0d4da' : '#eef0f3'}"/>`,
      );
      if (major) {
        out.push(
          `<text x="${gx.toFixed(1)}" y="${axisBottom + 14}" text-anchor="middle" fill="#333" font-size="11">${axisLabel(v)}</text>`,
        );
      }
    }
  }
  out.push(
    `<text x="${(LEFT + PLOT_RIGHT) / 2}" y="${axisBottom + 32}" text-anchor="middle" fill="#555">time per operation (whiskers p1–p99, box p25–p75, thick bar p50, tick p90)</text>`,
    `<text x="${PLOT_RIGHT + 10}" y="${TOP - 12}" fill="#555">p50 · p90 · p99 (n)</text>`,
  );
  groups.forEach((group, g) => {
    const y0 = TOP + g * groupHeight;
    out.push(`<text x="20" y="${y0 + 12}" font-weight="600">${escapeXml(group.title)}</text>`);
    group.series.forEach((s, i) => {
      const y = y0 + 20 + i * BAR;
      const mid = y + BAR / 2;
      out.push(
        `<text x="${LEFT - 10}" y="${mid + 4}" text-anchor="end" fill="${s.color}">${s.label}</text>`,
        `<line x1="${x(s.p.p1).toFixed(1)}" y1="${mid}" x2="${x(s.p.p99).toFixed(1)}" y2="${mid}" stroke="${s.color}" stroke-width="1.5"/>`,
        `<line x1="${x(s.p.p1).toFixed(1)}" y1="${mid - 5}" x2="${x(s.p.p1).toFixed(1)}" y2="${mid + 5}" stroke="${s.color}" stroke-width="1.5"/>`,
        `<line x1="${x(s.p.p99).toFixed(1)}" y1="${mid - 5}" x2="${x(s.p.p99).toFixed(1)}" y2="${mid + 5}" stroke="${s.color}" stroke-width="1.5"/>`,
        `<rect x="${x(s.p.p25).toFixed(1)}" y="${y + 3}" width="${Math.max(1, x(s.p.p75) - x(s.p.p25)).toFixed(1)}" height="${BAR - 6}" fill="${s.color}" fill-opacity="0.25" stroke="${s.color}"/>`,
        `<line x1="${x(s.p.p50).toFixed(1)}" y1="${y + 2}" x2="${x(s.p.p50).toFixed(1)}" y2="${y + BAR - 2}" stroke="${s.color}" stroke-width="3"/>`,
        `<line x1="${x(s.p.p90).toFixed(1)}" y1="${mid - 7}" x2="${x(s.p.p90).toFixed(1)}" y2="${mid + 7}" stroke="${s.color}" stroke-width="1.5" stroke-dasharray="2 1"/>`,
        `<text x="${PLOT_RIGHT + 10}" y="${mid + 4}" fill="${s.color}">${formatNs(s.p.p50)} · ${formatNs(s.p.p90)} · ${formatNs(s.p.p99)} (${s.n})</text>`,
      );
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** `1 µs`, `10 ms`, `1 s`: a decade, short. */
function axisLabel(ns: number): string {
  if (ns >= 1e9) return `${ns / 1e9} s`;
  if (ns >= 1e6) return `${ns / 1e6} ms`;
  if (ns >= 1e3) return `${ns / 1e3} µs`;
  return `${ns} ns`;
}

function series(label: string, color: string, values: readonly number[]): Series {
  const q = (p: number) => quantile(values, p);
  return {
    label,
    color,
    n: values.length,
    p: { p1: q(0.01), p25: q(0.25), p50: q(0.5), p75: q(0.75), p90: q(0.9), p99: q(0.99) },
  };
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function writeSvg(path: string, svg: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, svg);
}
