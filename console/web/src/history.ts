// Metrics kept while the tab is open: one point per feed tick, the last
// kMaxPoints (10 minutes at the default 1 s interval), in columns ready for
// uPlot (time in seconds, then one array per series).

export const kMaxPoints = 600;

export class Series {
  readonly t: number[] = [];
  readonly cols: number[][];
  constructor(readonly names: string[]) {
    this.cols = names.map(() => []);
  }
  push(tsMs: number, values: number[]): void {
    this.t.push(tsMs / 1000);
    values.forEach((v, i) => this.cols[i].push(v));
    if (this.t.length > kMaxPoints) {
      this.t.shift();
      this.cols.forEach((c) => c.shift());
    }
  }
  get length(): number {
    return this.t.length;
  }
  clear(): void {
    this.t.length = 0;
    this.cols.forEach((c) => (c.length = 0));
  }
}
