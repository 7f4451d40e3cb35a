/**
 * Thompson sampling over interchangeable implementations ("arms") of one
 * operation, rewarded by time per byte: each call asks which arm to run,
 * times it and reports back. Per arm it keeps weighted sums of
 * x = log(time per byte) (log, because timings are skewed and a block's
 * content scales every arm alike) and of up to two covariates of the input
 * whose effects are fitted and removed (see record); an arm's mean is believed
 * to be Normal(mean, variance / weight), one draw per arm per choice, lowest
 * wins.
 *
 * Every timing discounts all earlier ones by DECAY, so the bandit follows
 * drift and forgets the first calls, which run before the engine has
 * optimised the code (V8 tiers wasm up after a few calls) and would
 * otherwise brand whichever arm ran first as slow for good. An arm not
 * chosen for a while thus grows uncertain and is tried again; one whose
 * weight falls under MIN_WEIGHT (never timed, or long unchosen) is tried
 * before any sampling. Before anything is timed, the default arm runs.
 *
 * Clocks that do not move, or move coarsely: in deployed Workers,
 * `performance.now()` and `Date.now()` stand still during synchronous
 * execution (a Spectre mitigation), so a synchronous call measures 0; the
 * local workerd of this project's vitest pool moves them in whole
 * milliseconds, so a 50 us call measures 0 or 1 ms. Neither says anything
 * about speed. `run` therefore measures the clock's tick once (the smallest
 * step it takes; none if it never moves) and records only timings at least
 * MIN_TICKS ticks long; `record` drops zero and negative times. With nothing
 * ever recorded the bandit keeps choosing the default, which should be the
 * best fixed arm as measured where clocks work. In Node (CLI, benchmarks)
 * the clock resolves well under a microsecond and the bandit learns.
 *
 * @example
 * const bandit = new VariantBandit({ arms: 3, defaultArm: 2 });
 * const n = bandit.run((arm) => decode(input, arm), (n) => Math.max(n, 0));
 */

export interface VariantBanditOptions {
  /** Number of arms, named 0..arms-1. */
  arms: number;
  /** The arm chosen while nothing has been timed. */
  defaultArm: number;
  /** Uniform on [0, 1); injectable so tests are deterministic. Default Math.random. */
  random?: () => number;
  /** Milliseconds, for `run`; injectable for tests. Default performance.now. */
  now?: () => number;
  /** The clock's tick in milliseconds (Infinity: it never moves); measured from `now` when not given. */
  tick?: number;
}

export interface ArmStats {
  arm: number;
  /** Timings recorded (zero elapsed times are not). */
  samples: number;
  /** What those timings still weigh after discounting. */
  weight: number;
  /** Discounted geometric mean of nanoseconds per byte, or null before any timing. */
  nsPerByte: number | null;
}

/** A number, or up to COVARIATES of them (see record). */
export type Covariates = number | readonly number[];

/** Covariates the model fits at most. */
const COVARIATES = 2;

/** Weight each earlier timing keeps per new timing: about the last 100 timings count. */
const DECAY = 0.99;
/** An arm with less weight than this is tried before any sampling. */
const MIN_WEIGHT = 0.5;
/**
 * Prior on the spread of log time per byte, worth PRIOR_WEIGHT timings: an
 * arm timed once is still uncertain (about +-35 % on its mean), and a few
 * identical timings from a coarse clock do not make it a certainty.
 */
const PRIOR_VARIANCE = 0.25;
const PRIOR_WEIGHT = 1;
/**
 * Once every arm has weight, `run` times one call in this many; the others
 * run the arm with the lowest mean so far, untimed. Exploring only on timed
 * calls keeps its cost to those. A timed call costs about 1.5 us more (two
 * clock reads at about 0.6 us in Node on a VM without a fast clock source,
 * and the sampling), a quarter of a 25 KB page's decode: timing one call in
 * four cost the hot tier's decoding 6-9 % on real pages, one in 16 costs 2 %.
 */
const TIME_ONE_IN = 16;
/** A timing counts only if it spans this many clock ticks: under 5 % rounding error. */
const MIN_TICKS = 20;
/** Clock reads spent looking for the tick; a clock that has not moved by then is taken to stand still. */
const TICK_PROBES = 1000;
/** Steps of the clock looked at for its tick (within TICK_PROBES reads). */
const TICK_STEPS = 16;

export class VariantBandit {
  readonly arms: number;
  readonly defaultArm: number;
  readonly #random: () => number;
  readonly #now: () => number;
  /** Raw count of timings, for stats. */
  readonly #n: Float64Array;
  /**
   * Discounted weight and sums of x, x^2, c, x*c and c*c' per arm (x = log
   * time per byte, c = each of the COVARIATES covariates): #sc and #sxc hold
   * COVARIATES per arm, #scc COVARIATES^2.
   */
  readonly #w: Float64Array;
  readonly #sx: Float64Array;
  readonly #sxx: Float64Array;
  readonly #sc: Float64Array;
  readonly #sxc: Float64Array;
  readonly #scc: Float64Array;
  /** All of the above, to discount together. */
  readonly #sums: readonly Float64Array[];
  #recorded = 0;
  #greedy: number;
  #untimed = 0;
  #tick: number | undefined;

  constructor(options: VariantBanditOptions) {
    const { arms, defaultArm } = options;
    if (!Number.isInteger(arms) || arms < 1) throw new RangeError(`a bandit needs at least one arm, got ${arms}`);
    if (!Number.isInteger(defaultArm) || defaultArm < 0 || defaultArm >= arms)
      throw new RangeError(`default arm ${defaultArm} is not one of 0..${arms - 1}`);
    this.arms = arms;
    this.defaultArm = defaultArm;
    this.#greedy = defaultArm;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? (() => performance.now());
    this.#tick = options.tick;
    this.#n = new Float64Array(arms);
    this.#w = new Float64Array(arms);
    this.#sx = new Float64Array(arms);
    this.#sxx = new Float64Array(arms);
    this.#sc = new Float64Array(arms * COVARIATES);
    this.#sxc = new Float64Array(arms * COVARIATES);
    this.#scc = new Float64Array(arms * COVARIATES * COVARIATES);
    this.#sums = [this.#w, this.#sx, this.#sxx, this.#sc, this.#sxc, this.#scc];
  }

  choose(): number {
    if (this.#recorded === 0) return this.defaultArm;
    let lightest = 0;
    for (let a = 1; a < this.arms; a++) if (this.#w[a]! < this.#w[lightest]!) lightest = a;
    if (this.#w[lightest]! < MIN_WEIGHT) return lightest;
    const model = this.#fit();
    let best = 0;
    let bestDraw = Infinity;
    for (let a = 0; a < this.arms; a++) {
      const w = this.#w[a]!;
      const variance = (model.residualSquares[a]! + PRIOR_VARIANCE * PRIOR_WEIGHT) / (w + PRIOR_WEIGHT);
      const draw = model.means[a]! + Math.sqrt(variance / w) * this.#normal();
      if (draw < bestDraw) {
        bestDraw = draw;
        best = a;
      }
    }
    return best;
  }

  /**
   * Runs `body` with the chosen arm and records how long it took per byte
   * of work, as `bytes` tells from the result: 0 for a result that is not a
   * normal completion (an error path's time says nothing about the arm).
   * `covariate` describes the work (see record).
   */
  run<T>(body: (arm: number) => T, bytes: (result: T) => number, covariate: (result: T) => Covariates = () => 0): T {
    if (this.#untimed > 0) {
      this.#untimed--;
      return body(this.#greedy);
    }
    const tick = (this.#tick ??= measureTick(this.#now));
    const arm = this.choose();
    const t0 = this.#now();
    const result = body(arm);
    const elapsed = this.#now() - t0;
    if (elapsed >= MIN_TICKS * tick) this.record(arm, elapsed, bytes(result), covariate(result));
    if (this.#recorded > 0 && this.#w.every((w) => w >= MIN_WEIGHT)) {
      this.#untimed = TIME_ONE_IN - 1;
      this.#greedy = this.bestArm();
    }
    return result;
  }

  /**
   * One timing of `arm` over `bytes` bytes; elapsed in any unit, as long as
   * it is always the same one. A covariate is a property of the input that
   * moves every arm's log time per byte alike; up to COVARIATES of them, one
   * number or an array. For LZ4: the log of the compression ratio (a poorly
   * compressed block is mostly literal copies and costs about half as much
   * per byte in log terms) and the log of the size (a call's fixed cost
   * weighs on small blocks). Their effects are fitted across arms and taken
   * out, so one arm drawing harder or smaller inputs than another does not
   * make it look slower. With the ratio alone, an arm first timed on big
   * pages looked fastest and kept the untimed calls for good in about one
   * run in two, costing 12 % on real pages. Leave them 0 when there are none.
   */
  record(arm: number, elapsed: number, bytes: number, covariate: Covariates = 0): void {
    const c = typeof covariate === "number" ? [covariate] : covariate;
    if (!(elapsed > 0) || !(bytes > 0) || !Number.isFinite(elapsed) || !c.every(Number.isFinite)) return;
    if (!Number.isInteger(arm) || arm < 0 || arm >= this.arms)
      throw new RangeError(`arm ${arm} is not one of 0..${this.arms - 1}`);
    if (c.length > COVARIATES) throw new RangeError(`at most ${COVARIATES} covariates, got ${c.length}`);
    const x = Math.log(elapsed / bytes);
    for (const sums of this.#sums) for (let i = 0; i < sums.length; i++) sums[i]! *= DECAY;
    this.#n[arm]!++;
    this.#w[arm]! += 1;
    this.#sx[arm]! += x;
    this.#sxx[arm]! += x * x;
    for (let k = 0; k < c.length; k++) {
      const ck = c[k]!;
      this.#sc[arm * COVARIATES + k]! += ck;
      this.#sxc[arm * COVARIATES + k]! += x * ck;
      for (let l = 0; l < c.length; l++) this.#scc[(arm * COVARIATES + k) * COVARIATES + l]! += ck * c[l]!;
    }
    this.#recorded++;
  }

  /** The arm believed fastest now, without sampling (the default before any timing): what untimed calls run. */
  bestArm(): number {
    if (this.#recorded === 0) return this.defaultArm;
    const { means } = this.#fit();
    let best = this.defaultArm;
    for (let a = 0; a < this.arms; a++) if (this.#w[a]! > 0 && !(means[a]! >= means[best]!)) best = a;
    return best;
  }

  /** Per-arm statistics; nsPerByte (at the average covariate) assumes elapsed was recorded in milliseconds. */
  stats(): ArmStats[] {
    const { means } = this.#fit();
    return Array.from({ length: this.arms }, (_, arm) => {
      const w = this.#w[arm]!;
      return { arm, samples: this.#n[arm]!, weight: w, nsPerByte: w > 0 ? Math.exp(means[arm]!) * 1e6 : null };
    });
  }

  /** Forgets every timing, back to the default arm. */
  reset(): void {
    for (const a of [this.#n, ...this.#sums]) a.fill(0);
    this.#recorded = 0;
    this.#greedy = this.defaultArm;
    this.#untimed = 0;
  }

  /**
   * One slope per covariate, fitted within arms (analysis of covariance),
   * and each arm's mean log time moved to the average covariates, with the
   * squares of what the slopes leave unexplained.
   */
  #fit(): { means: number[]; residualSquares: number[] } {
    const K = COVARIATES;
    const sxc = new Float64Array(K);
    const scc = new Float64Array(K * K);
    const cSum = new Float64Array(K);
    let w = 0;
    for (let a = 0; a < this.arms; a++) {
      const wa = this.#w[a]!;
      if (wa <= 0) continue;
      const sx = this.#sx[a]!;
      for (let k = 0; k < K; k++) {
        const sck = this.#sc[a * K + k]!;
        sxc[k]! += this.#sxc[a * K + k]! - (sx * sck) / wa;
        for (let l = 0; l < K; l++)
          scc[k * K + l]! += this.#scc[(a * K + k) * K + l]! - (sck * this.#sc[a * K + l]!) / wa;
        cSum[k]! += sck;
      }
      w += wa;
    }
    const slope = solveSlopes(scc, sxc, K, 1e-9 * Math.max(w, 1));
    const means: number[] = [];
    const residualSquares: number[] = [];
    for (let a = 0; a < this.arms; a++) {
      const wa = this.#w[a]!;
      if (wa <= 0) {
        means.push(Number.NaN);
        residualSquares.push(0);
        continue;
      }
      const sx = this.#sx[a]!;
      let mean = sx / wa;
      let residual = this.#sxx[a]! - (sx * sx) / wa;
      for (let k = 0; k < K; k++) {
        const sck = this.#sc[a * K + k]!;
        mean -= slope[k]! * (sck / wa - (w > 0 ? cSum[k]! / w : 0));
        residual -= 2 * slope[k]! * (this.#sxc[a * K + k]! - (sx * sck) / wa);
        for (let l = 0; l < K; l++)
          residual += slope[k]! * slope[l]! * (this.#scc[(a * K + k) * K + l]! - (sck * this.#sc[a * K + l]!) / wa);
      }
      means.push(mean);
      residualSquares.push(Math.max(0, residual));
    }
    return { means, residualSquares };
  }

  /** A standard normal draw (Box-Muller; 1 - u keeps the log finite). */
  #normal(): number {
    const u = 1 - this.#random();
    const v = this.#random();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}

/**
 * Solves scc * slope = sxc (K x K, symmetric) for the slopes. A covariate
 * without spread (its diagonal under `tiny`) gets no slope; the rest are
 * solved by Gaussian elimination, a pivot under `tiny` (covariates that move
 * together) leaving that slope at 0.
 */
function solveSlopes(scc: Float64Array, sxc: Float64Array, K: number, tiny: number): Float64Array {
  const slope = new Float64Array(K);
  const used: number[] = [];
  for (let k = 0; k < K; k++) if (scc[k * K + k]! > tiny) used.push(k);
  const n = used.length;
  const m = used.map((k) => [...used.map((l) => scc[k * K + l]!), sxc[k]!]);
  const solved = new Array<boolean>(n).fill(true);
  for (let i = 0; i < n; i++) {
    if (Math.abs(m[i]![i]!) <= tiny) {
      solved[i] = false;
      continue;
    }
    for (let r = i + 1; r < n; r++) {
      const f = m[r]![i]! / m[i]![i]!;
      for (let col = i; col <= n; col++) m[r]![col]! -= f * m[i]![col]!;
    }
  }
  for (let i = n - 1; i >= 0; i--) {
    if (!solved[i]) continue;
    let v = m[i]![n]!;
    for (let j = i + 1; j < n; j++) v -= m[i]![j]! * slope[used[j]!]!;
    slope[used[i]!] = v / m[i]![i]!;
  }
  return slope;
}

/**
 * The smallest step `now` takes between successive reads, or Infinity if it
 * never moves: a coarse clock's resolution, or a fine clock's own read cost,
 * either of which a timing must dwarf to mean anything.
 */
function measureTick(now: () => number): number {
  let tick = Infinity;
  let last = now();
  // The smallest of several steps: the first reads of a clock run cold (in
  // Node 2-3 us apart, then 0.3-0.5 us), and any step may be stretched by an
  // interruption. Taking the smaller of two, the tick came out near 2 us, so
  // only calls over 40 us counted: none of a real page's, just the rare
  // stalled one, which then branded its arm slow.
  for (let i = 0, steps = 0; i < TICK_PROBES && steps < TICK_STEPS; i++) {
    const t = now();
    if (t > last) {
      tick = Math.min(tick, t - last);
      last = t;
      steps++;
    }
  }
  return tick;
}
