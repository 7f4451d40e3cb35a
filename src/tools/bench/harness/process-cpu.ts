/**
 * CPU time of the local Worker's workerd processes, read from Linux's
 * per-thread `schedstat` (nanoseconds on a CPU), so one request's cost can
 * be taken as the difference around it. `/proc/PID/stat` counts in clock
 * ticks (10 ms), coarser than most responses; inside workerd the clock stands
 * still while code runs, so the Worker cannot time itself.
 *
 * @example
 * const cpu = await workerdCpu();       // the workerd processes this process started
 * const before = cpu.nanos();
 * await fetch(url);
 * const ms = (cpu.nanos() - before) / 1e6;
 */
import { readdirSync, readFileSync } from "node:fs";

export interface ProcessCpu {
  pids: number[];
  /** CPU nanoseconds so far, summed over every thread of the processes. */
  nanos(): number;
}

function parentOf(pid: number): number | null {
  try {
    // The command name may hold spaces and parentheses: fields start after the last ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p: number | null = pid, hops = 0; p !== null && p > 1 && hops < 32; p = parentOf(p), hops++) {
    if (p === ancestor) return true;
  }
  return false;
}

function threadNanos(pid: number): number {
  let total = 0;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return 0;
  }
  for (const tid of tasks) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A thread that ended between listing and reading.
    }
  }
  return total;
}

/** The workerd processes descended from this one (started by wrangler for a local Worker). */
export function workerdCpu(exclude: readonly number[] = []): ProcessCpu {
  if (process.platform !== "linux") throw new Error("measuring workerd's CPU needs Linux's /proc");
  const pids = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => !exclude.includes(pid) && commandOf(pid) === "workerd" && descendsFrom(pid, process.pid));
  if (pids.length === 0) throw new Error("no workerd process started by this one: is the local Worker running?");
  return { pids, nanos: () => pids.reduce((n, pid) => n + threadNanos(pid), 0) };
}
