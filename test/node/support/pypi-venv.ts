/**
 * Real Python clients for the Node tests (pywb, memento-client, …),
 * installed from PyPI into a venv of their own under the OS temporary
 * folder: `python3 -m venv`, then `pip install` of the pinned
 * requirements. The venv's folder is named by a digest of the
 * requirements and the interpreter's version, so a second run reuses it
 * (pywb's install takes tens of seconds) and a change of pins makes a new
 * one. A venv is only used once its install finished (a marker file,
 * written last, holding `pip freeze`); a lock folder keeps two runs from
 * installing the same one at once.
 *
 * @example
 * const venv = await pypiVenv(["memento_client==0.6.*"]);
 * await run(venv.python, ["-c", "import memento_client"]);
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { commandMissing, firstMissing } from "./requirements.ts";

const run = promisify(execFile);

/** Null when python3 can make a venv with pip in it (Debian: python3-venv); else why not. For describeNeeding. */
export const NO_PYTHON_VENV = firstMissing(
  commandMissing("python3"),
  commandMissing("python3", ["-c", "import venv, ensurepip"]) &&
    "python3 cannot make a venv with pip (Debian: apt-get install python3-venv python3-pip)",
);

/** pip's whole install, generous for a slow mirror on a loaded machine. */
export const PIP_INSTALL_TIMEOUT_MS = 300_000;

export interface PypiVenv {
  dir: string;
  python: string;
  /** A console script the packages installed (`wayback`, …). */
  bin(name: string): string;
}

const MARKER = ".palimpsest-installed";

/** A venv holding `requirements` (pip specifiers), made now or reused from an earlier run. */
export async function pypiVenv(requirements: readonly string[]): Promise<PypiVenv> {
  const { stdout: version } = await run("python3", ["-c", "import sys; print(sys.version)"]);
  const key = createHash("sha256")
    .update(`${version}\n${[...requirements].sort().join("\n")}`)
    .digest("hex")
    .slice(0, 16);
  const dir = join(tmpdir(), `palimpsest-venv-${key}`);
  const venv: PypiVenv = { dir, python: join(dir, "bin/python"), bin: (name) => join(dir, "bin", name) };
  const lock = `${dir}.lock`;
  const deadline = Date.now() + PIP_INSTALL_TIMEOUT_MS + 60_000;
  for (;;) {
    if (existsSync(join(dir, MARKER))) return venv;
    try {
      await mkdir(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      // Another run is installing it; a lock older than any install is a crashed run's.
      if (Date.now() > deadline)
        throw new Error(
          `${lock} is still held after ${PIP_INSTALL_TIMEOUT_MS / 1000} s; remove it if no test is running`,
        );
      await sleep(1_000);
    }
  }
  try {
    if (existsSync(join(dir, MARKER))) return venv;
    // A folder without the marker is an install that did not finish: start again.
    await rm(dir, { recursive: true, force: true });
    await run("python3", ["-m", "venv", dir]);
    await run(
      venv.python,
      ["-m", "pip", "install", "--disable-pip-version-check", "--no-input", "--quiet", ...requirements],
      {
        timeout: PIP_INSTALL_TIMEOUT_MS,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const { stdout: frozen } = await run(venv.python, ["-m", "pip", "freeze", "--disable-pip-version-check"]);
    await writeFile(join(dir, MARKER), frozen);
    return venv;
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
