/**
 * The benches' one harness: timing (timing.ts), statistics (stats.ts), a
 * figure against its same-run baseline (compare.ts), row output as JSON
 * lines or a table (report.ts) and progress lines (progress.ts). A bench
 * describes what it measures and leaves how to time, summarise and print it
 * to these.
 *
 * @example
 * import { compareThroughput, QUICK_POLICY, rowPrinter } from "./index.ts";
 */
export * from "./compare.ts";
export * from "./progress.ts";
export * from "./report.ts";
export * from "./stats.ts";
export * from "./timing.ts";
