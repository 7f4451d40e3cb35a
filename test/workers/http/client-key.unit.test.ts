/**
 * src/http/rate-limit.ts's `clientOf`, the one key every per-client limit
 * counts by: an IPv4 client is its address, an IPv6 client its /64, and an
 * IPv4-mapped IPv6 address the IPv4 address it maps (else every client that
 * reaches the Worker as `::ffff:a.b.c.d` would share one /64 bucket, `0:0:0:0`).
 */
import { describe, expect, it } from "vitest";
import { clientOf } from "../../../src/http/rate-limit.ts";

const from = (ip?: string) =>
  new Request("http://archive.test/", { headers: ip === undefined ? {} : { "cf-connecting-ip": ip } });

describe("clientOf", () => {
  it("keys an IPv4 client by its address, an IPv6 client by its /64, and a request without an address as one", () => {
    expect(clientOf(from("198.51.100.7"))).toBe("198.51.100.7");
    expect(clientOf(from("2001:db8:77:0::1"))).toBe("2001:db8:77:0::/64");
    expect(clientOf(from("2001:0DB8:0077:0000:ffff:0:c000:201"))).toBe("2001:db8:77:0::/64");
    expect(clientOf(from("[2001:db8::1%eth0]"))).toBe("2001:db8:0:0::/64");
    expect(clientOf(from())).toBe("no-address");
  });

  it.each([
    ["::ffff:192.0.2.10", "dotted"],
    ["::FFFF:192.0.2.10", "upper case"],
    ["::ffff:c000:20a", "hex"],
    ["::ffff:c000:020a", "hex, zero-padded"],
    ["0:0:0:0:0:ffff:c000:20a", "written out"],
    ["0000:0000:0000:0000:0000:ffff:192.0.2.10", "written out, dotted"],
    ["[::ffff:192.0.2.10]", "bracketed"],
  ])("keys the IPv4-mapped %s (%s) as the IPv4 client 192.0.2.10", (ip) => {
    expect(clientOf(from(ip))).toBe("192.0.2.10");
  });

  it("tells two IPv4-mapped clients apart", () => {
    expect(clientOf(from("::ffff:192.0.2.10"))).not.toBe(clientOf(from("::ffff:192.0.2.11")));
    expect(clientOf(from("::ffff:203.0.113.9"))).toBe("203.0.113.9");
  });

  it("keeps what is not IPv4-mapped an IPv6 /64: the IPv4-compatible and NAT64 forms, and junk", () => {
    expect(clientOf(from("::192.0.2.10"))).toBe("0:0:0:0::/64");
    expect(clientOf(from("64:ff9b::192.0.2.10"))).toBe("64:ff9b:0:0::/64");
    expect(clientOf(from("::fffe:192.0.2.10"))).toBe("0:0:0:0::/64");
    expect(clientOf(from("::ffff:999.0.2.10"))).toBe("0:0:0:0::/64");
    expect(clientOf(from("zz::1"))).toBe("x:0:0:0::/64");
  });
});
