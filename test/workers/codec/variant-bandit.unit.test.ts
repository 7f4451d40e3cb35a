/**
 * The Thompson-sampling bandit that picks the LZ4 decoder variant, with a
 * fake clock and a seeded RNG: the default until something is timed, zero
 * and unresolvable timings ignored, convergence to the fastest arm, and
 * recovery when the fastest arm changes.
 */
import { describe, expect, it } from "vitest";
import { VariantBandit } from "../../../src/codec/lz4/variant-bandit.ts";
import { prng } from "./support/prng.ts";

/** A clock the arms advance: arm a takes nsPerByte[a] * bytes, times lognormal-ish noise. */
function fakeWorld(nsPerByte: number[], seed: number, noise = 0.3) {
  const rand = prng(seed);
  let t = 0;
  return {
    now: () => t,
    work(arm: number, bytes: number) {
      const jitter = Math.exp(noise * (rand.next() + rand.next() + rand.next() - 1.5));
      t += (nsPerByte[arm]! * bytes * jitter) / 1e6;
    },
    random: () => rand.next(),
  };
}

/**
 * Arm 1, 5 % faster than arm 0 once the covariates are taken out, won more
 * than 85 % of the `late` calls, and the bandit's estimate of its speed
 * against arm 0 lies strictly between `low` and `high`.
 */
function expectCovariatesTakenOut(bandit: VariantBandit, late: number[], low: number, high: number): void {
  expect(late.filter((a) => a === 1).length / late.length).toBeGreaterThan(0.85);
  const [slow, fast] = bandit.stats();
  const ratio = fast!.nsPerByte! / slow!.nsPerByte!;
  expect(ratio).toBeGreaterThan(low);
  expect(ratio).toBeLessThan(high);
}

describe("VariantBandit", () => {
  it("chooses the default arm while nothing is known", () => {
    const bandit = new VariantBandit({ arms: 3, defaultArm: 2, random: prng(1).next });
    for (let i = 0; i < 10; i++) expect(bandit.choose()).toBe(2);
    expect(bandit.stats().every((s) => s.samples === 0 && s.nsPerByte === null)).toBe(true);
  });

  it("ignores zero, negative and non-finite timings, as a frozen workerd clock gives, and results worth 0 bytes", () => {
    const bandit = new VariantBandit({ arms: 3, defaultArm: 1, random: prng(2).next, now: () => 1234, tick: Infinity });
    for (let i = 0; i < 100; i++)
      expect(
        bandit.run(
          (arm) => arm,
          () => 4096,
        ),
      ).toBe(1);
    bandit.record(0, 0, 100);
    bandit.record(0, -1, 100);
    bandit.record(0, Number.POSITIVE_INFINITY, 100);
    bandit.record(0, Number.NaN, 100);
    bandit.record(0, 5, 0);
    expect(bandit.choose()).toBe(1);
    expect(bandit.stats().map((s) => s.samples)).toEqual([0, 0, 0]);
  });

  it("measures a never-moving clock's tick as Infinity and so learns nothing from it", () => {
    let reads = 0;
    const bandit = new VariantBandit({ arms: 2, defaultArm: 0, now: () => (reads++, 5) });
    for (let i = 0; i < 5; i++)
      bandit.run(
        () => undefined,
        () => 1000,
      );
    expect(bandit.stats().map((s) => s.samples)).toEqual([0, 0]);
    expect(reads).toBeGreaterThan(100); // it did look for a tick
  });

  it("finds a clock's tick past its cold first reads, so calls of a few microseconds count", () => {
    // Like Node's performance.now(): the first reads come 2.5 us apart, then 0.4 us.
    let t = 0;
    let reads = 0;
    const now = () => (t += reads++ < 3 ? 0.0025 : 0.0004);
    const bandit = new VariantBandit({ arms: 2, defaultArm: 0, random: prng(9).next, now });
    // A 10 us call: 25 ticks of 0.4 us, but only 4 of 2.5 us.
    // The first two calls are timed (one per arm); then one in 16 is.
    for (let i = 0; i < 2; i++)
      bandit.run(
        () => (t += 0.01),
        () => 40_000,
      );
    expect(bandit.stats().map((s) => s.samples)).toEqual([1, 1]);
  });

  it("ignores timings of a few ticks of a coarse clock (workerd's vitest pool moves in whole ms)", () => {
    let t = 0;
    // Every other call straddles a 1 ms tick: the arm looks like 1 ms, whatever it really took.
    const bandit = new VariantBandit({ arms: 2, defaultArm: 1, random: prng(3).next, now: () => t, tick: 1 });
    for (let i = 0; i < 50; i++)
      bandit.run(
        () => (t += i % 2),
        () => 50_000,
      );
    expect(bandit.stats().map((s) => s.samples)).toEqual([0, 0]);
    // A call 20 ticks long is resolved well enough to count.
    bandit.run(
      () => (t += 20),
      () => 50_000,
    );
    expect(bandit.stats()[1]!.samples).toBe(1);
  });

  it("tries every arm before sampling, then converges to the fastest", () => {
    const world = fakeWorld([1.0, 0.6, 0.8], 4);
    const bandit = new VariantBandit({ arms: 3, defaultArm: 0, random: world.random, now: world.now, tick: 1e-6 });
    const first: number[] = [];
    for (let i = 0; i < 3; i++)
      first.push(
        bandit.run(
          (arm) => (world.work(arm, 50_000), arm),
          () => 50_000,
        ),
      );
    expect(first).toEqual([0, 1, 2]);
    const late: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const arm = bandit.run(
        (a) => (world.work(a, 50_000), a),
        () => 50_000,
      );
      if (i >= 2000) late.push(arm);
    }
    const share = late.filter((a) => a === 1).length / late.length;
    expect(share).toBeGreaterThan(0.85);
    const stats = bandit.stats();
    expect(stats[1]!.nsPerByte!).toBeGreaterThan(0.5);
    expect(stats[1]!.nsPerByte!).toBeLessThan(0.7);
  });

  it("follows a change of the fastest arm (the first calls run before the engine optimises)", () => {
    const speeds = [0.5, 3.0];
    const world = fakeWorld(speeds, 5);
    const bandit = new VariantBandit({ arms: 2, defaultArm: 0, random: world.random, now: world.now, tick: 1e-6 });
    const run = () =>
      bandit.run(
        (a) => (world.work(a, 10_000), a),
        () => 10_000,
      );
    for (let i = 0; i < 400; i++) run();
    speeds[0] = 3.0;
    speeds[1] = 0.5;
    const late: number[] = [];
    for (let i = 0; i < 4000; i++) {
      const arm = run();
      if (i >= 3000) late.push(arm);
    }
    expect(late.filter((a) => a === 1).length / late.length).toBeGreaterThan(0.85);
  });

  it("takes two covariates' effects out, even when the slower arm drew the bigger inputs", () => {
    const rand = prng(8);
    let t = 0;
    const bandit = new VariantBandit({ arms: 2, defaultArm: 0, random: rand.next, now: () => t, tick: 1e-6 });
    // Arm 0 first, on big inputs only, where a call's fixed cost weighs least; arm 1 is 5 % faster.
    const logNsPerByte = (a: number, ratio: number, logSize: number) =>
      (a === 0 ? 0 : Math.log(0.95)) + 0.8 * ratio - 0.3 * (logSize - 10) + 0.01 * (rand.next() - 0.5);
    const call = (force: number | null, ratio: number, logSize: number) =>
      bandit.run(
        (a) => {
          const arm = force ?? a;
          t += (Math.exp(logNsPerByte(arm, ratio, logSize)) * Math.exp(logSize)) / 1e6;
          return arm;
        },
        () => Math.exp(logSize),
        () => [ratio, logSize],
      );
    for (let i = 0; i < 200; i++)
      bandit.record(0, (Math.exp(logNsPerByte(0, 0, 13)) * Math.exp(13)) / 1e6, Math.exp(13), [0, 13]);
    const late: number[] = [];
    for (let i = 0; i < 6000; i++) {
      const arm = call(null, 2 * (rand.next() - 0.5), 7 + 6 * rand.next());
      if (i >= 4000) late.push(arm);
    }
    expectCovariatesTakenOut(bandit, late, 0.9, 1);
  });

  it("takes a covariate's effect out: a 5 % difference under input-driven spread ten times larger", () => {
    const rand = prng(7);
    let t = 0;
    let c = 0;
    const bandit = new VariantBandit({ arms: 2, defaultArm: 0, random: rand.next, now: () => t, tick: 1e-6 });
    const late: number[] = [];
    for (let i = 0; i < 3000; i++) {
      c = 2 * (rand.next() - 0.5); // the input's compressibility, say
      const arm = bandit.run(
        (a) => {
          const logNsPerByte = (a === 0 ? 0 : Math.log(0.95)) + 0.8 * c + 0.01 * (rand.next() - 0.5);
          t += (Math.exp(logNsPerByte) * 100_000) / 1e6;
          return a;
        },
        () => 100_000,
        () => c,
      );
      if (i >= 2000) late.push(arm);
    }
    expectCovariatesTakenOut(bandit, late, 0.92, 0.98);
  });

  it("explores only on timed calls: the untimed ones in between run the arm believed fastest", () => {
    const world = fakeWorld([1.0, 1.3, 1.6], 8);
    let reads = 0;
    const bandit = new VariantBandit({
      arms: 3,
      defaultArm: 2,
      random: world.random,
      now: () => (reads++, world.now()),
      tick: 1e-6,
    });
    const untimed: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const before = reads;
      const arm = bandit.run(
        (a) => (world.work(a, 50_000), a),
        () => 50_000,
      );
      if (i >= 200 && reads === before) untimed.push(arm);
    }
    expect(untimed.length).toBeGreaterThan(1000);
    expect(untimed.every((a) => a === 0)).toBe(true);
  });

  it("times only one call in 16 once every arm is known, reusing the choice in between", () => {
    let reads = 0;
    let t = 0;
    const bandit = new VariantBandit({
      arms: 2,
      defaultArm: 0,
      random: prng(6).next,
      now: () => (reads++, t),
      tick: 1e-6,
    });
    for (let i = 0; i < 2; i++)
      bandit.run(
        () => (t += 1),
        () => 1000,
      );
    const before = reads;
    for (let i = 0; i < 160; i++)
      bandit.run(
        () => (t += 1),
        () => 1000,
      );
    expect(reads - before).toBe(20); // 10 timed calls, two reads each
  });

  it("rejects a bad arm count, default arm or recorded arm", () => {
    expect(() => new VariantBandit({ arms: 0, defaultArm: 0 })).toThrow(RangeError);
    expect(() => new VariantBandit({ arms: 2, defaultArm: 2 })).toThrow(RangeError);
    expect(() => new VariantBandit({ arms: 2, defaultArm: 0 }).record(5, 1, 1)).toThrow(RangeError);
  });
});
