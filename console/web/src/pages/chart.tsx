// A uPlot time-series chart over a history Series: a few of its columns,
// one axis formatter. Redrawn when the feed ticks (at most once a frame),
// resized with its box (ResizeObserver), colours from the theme's CSS.
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import * as fmt from "../format";
import { Series } from "../history";

export interface ChartProps {
  title: string;
  series: Series;
  columns: number[];  // indexes into series.cols
  labels: string[];
  format: (v: number) => string;
  version: number;  // changes when the series gained points
  height?: number;
  testId?: string;
}

const kColors = ["--c1", "--c2", "--c3", "--c4"];

function css(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

export function Chart(p: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  const data = (): uPlot.AlignedData => [p.series.t, ...p.columns.map((c) => p.series.cols[c])] as uPlot.AlignedData;

  useEffect(() => {
    const el = box.current!;
    const axis = { stroke: css("--fg-dim"), grid: { stroke: css("--grid"), width: 1 }, ticks: { stroke: css("--grid") } };
    const opts: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height: p.height ?? 160,
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      // While the history is short the axis spans at least 30 s.
      scales: {
        x: { time: true, range: (_u, min, max) => [Math.min(min, max - 30), max] },
        y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      },
      axes: [
        { ...axis, values: (_u, vals) => vals.map((v) => fmt.clock(v * 1000)) },
        { ...axis, size: 70, values: (_u, vals) => vals.map((v) => (v === 0 ? "0" : p.format(v))) },
      ],
      series: [{}, ...p.labels.map((l, i) => ({
        label: l, stroke: css(kColors[i % kColors.length]), width: 1.5,
        value: (_u: uPlot, v: number | null) => (v == null ? "—" : p.format(v)),
      }))],
    };
    plot.current = new uPlot(opts, data(), el);
    const ro = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height: p.height ?? 160 }));
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  useEffect(() => {
    plot.current?.setData(data());
  }, [p.version]);

  return (
    <section class="chart" data-testid={p.testId} data-points={p.series.length} aria-label={p.title}>
      <h3>{p.title}</h3>
      <div ref={box} class="chart-box" />
    </section>
  );
}
