/**
 * How `palimpsest import` shows its progress on stderr: on a terminal, a bar
 * over the file's bytes read with the pages and revisions stored; without one
 * (a CI log, a pipe), a line every `intervalMs` with pages, revisions and
 * revisions per second, so a long import shows that it moves, and one with the
 * totals at the end. Warnings go between, on lines of their own.
 *
 * @example
 * const progress = importProgress({ mode: "lines", totalBytes, intervalMs: 5_000, figures: () => ({ readBytes, pages, revisions }) });
 * progress.update();      // bytes were read, a page was stored
 * progress.warn("skipped …");
 * progress.finish(); // the totals
 * progress.stop();
 */
import cliProgress from "cli-progress";

export interface ProgressFigures {
  /** Bytes of the file read so far. */
  readBytes: number;
  /** Pages wholly stored. */
  pages: number;
  /** Revisions stored or found already stored. */
  revisions: number;
}

export interface ImportProgress {
  /** The figures moved: redraws the bar (lines are written on their own clock). */
  update(): void;
  /** A line for the user, between the bar's redraws. */
  warn(line: string): void;
  /** Every page is stored: without a terminal, one last line with the totals. */
  finish(): void;
  stop(): void;
}

export interface ProgressOptions {
  /** `bar` on a terminal, `lines` without one, `none` for --no-progress. */
  mode: "bar" | "lines" | "none";
  totalBytes: number;
  intervalMs: number;
  figures(): ProgressFigures;
  stream?: NodeJS.WriteStream;
  now?(): number;
}

/** Revisions per second over `ms` milliseconds, to one decimal. */
function rate(revisions: number, ms: number): number {
  return ms <= 0 ? 0 : Math.round((revisions / ms) * 1000 * 10) / 10;
}

export function importProgress(options: ProgressOptions): ImportProgress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const started = now();
  const say = (line: string) => stream.write(`palimpsest: ${line}\n`);
  switch (options.mode) {
    case "none":
      return { update() {}, warn: say, finish() {}, stop() {} };
    case "lines": {
      const tick = () => {
        const f = options.figures();
        const percent = options.totalBytes > 0 ? Math.floor((f.readBytes / options.totalBytes) * 100) : 100;
        say(
          `imported ${f.pages} pages, ${f.revisions} revisions, ${rate(f.revisions, now() - started)} rev/s (${percent} % of the file read)`,
        );
      };
      const timer = setInterval(tick, options.intervalMs);
      timer.unref();
      return {
        update() {},
        warn: say,
        finish() {
          clearInterval(timer);
          tick();
        },
        stop: () => clearInterval(timer),
      };
    }
    case "bar": {
      const bar = new cliProgress.SingleBar(
        {
          format:
            "importing [{bar}] {percentage}% | {pages} pages | {revisions} revisions | {rate} rev/s | {eta_formatted} left",
          stream,
        },
        cliProgress.Presets.shades_classic,
      );
      const payload = () => {
        const f = options.figures();
        return { pages: f.pages, revisions: f.revisions, rate: rate(f.revisions, now() - started) };
      };
      bar.start(options.totalBytes, 0, payload());
      return {
        update: () => bar.update(options.figures().readBytes, payload()),
        warn(line) {
          bar.stop();
          say(line);
          bar.start(options.totalBytes, options.figures().readBytes, payload());
        },
        finish: () => bar.update(options.figures().readBytes, payload()),
        stop: () => bar.stop(),
      };
    }
  }
}
