/**
 * A route fuzzer: thousands of hostile requests, from a seeded PRNG so any
 * failure reproduces, against every route the Worker serves (read API,
 * Memento, browse pages and the revision viewer, write, purge, tier and dev APIs, the dashboard),
 * anonymously, with each token scope and with dashboard sessions. Paths,
 * queries, headers and bodies carry non-numeric and out-of-range ids,
 * unicode, bidi and zero-width characters, broken percent-encoding, segments
 * at the URL limit, odd methods and malformed JSON and forms. Whatever is
 * sent, the answer is never a 5xx: a 5xx is the archive's fault, and logs a stack.
 *
 * Set SEED below to replay a failure; the first offending request is printed
 * whole (method, URL, headers, body) with the answer it got.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LIMITS } from "../../../src/limits.ts";
import { mulberry32 } from "../../../src/lib/mulberry32.ts";
import { appendOk, linearHistory, request } from "../support/archive.ts";
import { csrfOf, login, type Signed } from "../dashboard/support/dashboard.ts";
import { TOKENS } from "../support/tokens.ts";

const SEED = 0x25_0012;
const REQUESTS = 10_000;
/** Requests in flight at once: workerd overlaps their storage waits, which keeps the run well inside its timeout. */
const CONCURRENCY = 6;
const ORIGIN = "http://archive.test";

/** Pages with real history, so some generated ids and cursors name real revisions. */
const TEXT_PAGE = "Fuzz_page";
const HTML_PAGE = "Fuzz_html";
const SUB_PAGE = "Fuzz/sub";
const REAL_IDS = ["1", "2", "3", "4", "5", "6"];

type Rand = () => number;
const pick = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const chance = (rand: Rand, p: number) => rand() < p;

/** Path segments and query values nobody should send: each must be answered with a 4xx (or a 2xx/3xx when it happens to be valid). */
const HOSTILE = [
  "abc",
  "1.5",
  "1e3",
  "1E3",
  "-1",
  "-0",
  "0",
  "00",
  "01",
  "+1",
  " 1",
  "1 ",
  "0x1f",
  "0b1",
  "1n",
  "1_000",
  "1,2",
  "Infinity",
  "-Infinity",
  "NaN",
  "null",
  "undefined",
  "true",
  "[]",
  "{}",
  "[object Object]",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "9007199254740991",
  "9007199254740992",
  "9007199254740993",
  "18446744073709551616",
  "99999999999999999999",
  "9".repeat(40),
  "1".repeat(400),
  "1e309",
  "4.9e-324",
  "%",
  "%%",
  "%0",
  "%00",
  "%0a",
  "%0d%0a",
  "%09",
  "%7f",
  "%ff",
  "%FF%FE",
  "%c0%af",
  "%c0%80",
  "%e0%80%af",
  "%f0%80%80%af",
  "%ed%a0%80",
  "%ed%bf%bf",
  "%f4%90%80%80",
  "%fe%ff",
  "%2e",
  "%2e%2e",
  "..",
  ".",
  "...",
  "%2F",
  "%2f..%2f..%2f",
  "%5C",
  "%5c..%5c",
  "a%00b",
  "%25",
  "%2525",
  "%u202e",
  "%E2%80%AE",
  "%E2%80%8B",
  "%E2%80%8C",
  "%E2%80%8D",
  "%C2%AD",
  "%EF%BB%BF",
  "%E2%81%A6",
  "%EF%BF%BD",
  "%F0%9F%98%80",
  "%F3%A0%80%81",
  "\u202eevil",
  "a\u200bb",
  "\u00adsoft",
  "\ufeffbom",
  "\u2066iso\u2069",
  "é",
  "e\u0301",
  "ß",
  "日本語",
  "١٢٣",
  "１２",
  "𝟏",
  "+",
  "_",
  "__",
  " ",
  "%20",
  ":",
  "Talk:",
  "Special:Random",
  "File:",
  "Help:Contents%2F2",
  "#",
  "#frag",
  "?",
  "?x=1",
  ";",
  "a;b",
  "*",
  "'",
  '"',
  "<script>alert(1)</script>",
  "%3Cscript%3E",
  "${7*7}",
  "{{7*7}}",
  "$(id)",
  "`id`",
  "a".repeat(255),
  "a".repeat(256),
  "é".repeat(128),
  "~",
  "!",
  "@",
  "&",
  "=",
  "|",
  "^",
  "\\",
  "[",
  "]",
  "history",
  "compare",
  "timemap",
  "1...2",
  "1..2",
  "2...1",
  "0...0",
  "1...abc",
  "abc...1",
  "1...1.5",
  "1...99999999999999999999",
  "1....2",
];

const METHODS = [
  "GET",
  "GET",
  "GET",
  "HEAD",
  "OPTIONS",
  "PUT",
  "DELETE",
  "PATCH",
  "POST",
  "PROPFIND",
  "TRACE",
] as const;

/** A segment that takes the URL to within a few characters of the limit, either side of it. */
function nearLimit(rand: Rand, base: number): string {
  const target = LIMITS.http.maxUrlLength - base + Math.floor(rand() * 41) - 20;
  const unit = pick(rand, ["a", "%41", "é", "%E2%80%AE", "9"]);
  let s = "";
  while (s.length < target) s += unit;
  return s.slice(0, Math.max(1, target));
}

function segment(rand: Rand, real: readonly string[] = []): string {
  const r = rand();
  if (r < 0.25 && real.length > 0) return pick(rand, real);
  if (r < 0.9) return pick(rand, HOSTILE);
  if (r < 0.95) return pick(rand, HOSTILE) + pick(rand, HOSTILE);
  return String(Math.floor((rand() - 0.3) * 10 ** Math.floor(rand() * 20)));
}

const title = (rand: Rand) =>
  chance(rand, 0.4)
    ? pick(rand, [TEXT_PAGE, HTML_PAGE, "Fuzz%2Fsub", "Fuzz_page%20", "fuzz_page", "Fuzz page"])
    : segment(rand);
const id = (rand: Rand) => segment(rand, REAL_IDS);

const QUERY_KEYS = [
  "at",
  "limit",
  "older",
  "newer",
  "from",
  "to",
  "after",
  "before",
  "q",
  "wait",
  "op",
  "rounds",
  "kind",
  "items",
  "csrf",
  "format",
  "__proto__",
  "x",
];
const QUERY_VALUES = [
  "2020-01-01T00:00:03Z",
  "2020-01-01T00:00:03.5Z",
  "20200101000003",
  "2020",
  "0",
  "99999999999999",
  "-1",
  "2020-13-45",
  "2020-02-30T25:61:61Z",
  "+275760-09-13T00:00:00.001Z",
  "now",
  "1",
  "50",
  "5000",
  "b3",
  "a1",
  "b0",
  "a9007199254740993",
  "bb",
  "b",
  "a",
  "b-1",
  "b1.5",
  "compress",
  "decompress",
  "3",
];

function queryString(rand: Rand): string {
  const r = rand();
  if (r < 0.3) return "";
  if (r < 0.38)
    return pick(rand, [
      "?",
      "?%",
      "?=&=&",
      "?at",
      "?at=&at=2020",
      "?a[b]=c",
      "?limit=1&limit=2",
      "?%zz=%zz",
      "?&&&",
      "?at=%00",
      "?from=abc",
      "?from=1&to=abc",
      "?after=abc",
      "?before=1.5",
      "?limit=abc",
      "?older=abc",
    ]);
  const n = 1 + Math.floor(rand() * 3);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) {
    const value = chance(rand, 0.5) ? pick(rand, QUERY_VALUES) : chance(rand, 0.3) ? id(rand) : segment(rand);
    parts.push(`${pick(rand, QUERY_KEYS)}=${value}`);
  }
  return `?${parts.join("&")}`;
}

/** A URL the archive serves, with hostile parts: used as purge items and form lines. */
function purgeUrl(rand: Rand): string {
  const host = pick(rand, [
    "http://archive.test",
    "https://archive.test",
    "http://ARCHIVE.test:80",
    "http://evil.example",
    "ftp://archive.test",
    "http://archive.test:99999",
    "//archive.test",
    "archive.test",
    "http://[::1]",
    "http://archive.test@evil.example",
  ]);
  const path = pick(rand, [
    () => `/page/${title(rand)}`,
    () => `/page/${title(rand)}/${id(rand)}`,
    () => `/page/${title(rand)}/history`,
    () => `/timemap/${pick(rand, ["link", "json", "x"])}/${title(rand)}`,
    () => `/page/${title(rand)}/${id(rand)}/${segment(rand)}`,
    () => `/${segment(rand)}`,
    () => `/page/\ud800/${id(rand)}`,
    () => `/page/${TEXT_PAGE}/\udfff`,
  ])();
  return `${host}${path}${queryString(rand)}`;
}

function purgeBody(rand: Rand): unknown {
  const items = (make: () => unknown) => Array.from({ length: Math.floor(rand() * 4) }, make);
  const hostItem = () =>
    pick(rand, [
      "archive.test",
      "ARCHIVE.TEST",
      "archive.test:8787",
      "evil.example",
      "",
      "\ud800",
      "archive.test\u202e",
      segment(rand),
    ]);
  const prefix = () =>
    `${pick(rand, ["archive.test", "evil.example", "archive.test:1", ""])}${pick(rand, ["", "/", "/page", `/page/${title(rand)}`, `/page/\ud83d/${segment(rand)}`, `/timemap/link/${title(rand)}`, `/page/${title(rand)}/${segment(rand)}/${segment(rand)}`])}`;
  const tag = () =>
    pick(rand, ["page:Fuzz_page", "a,b", "a\nb", " x ", "", "\ud800", "\u202e", "x".repeat(2000), segment(rand)]);
  return pick(rand, [
    () => ({
      files: items(() =>
        chance(rand, 0.8)
          ? purgeUrl(rand)
          : { url: purgeUrl(rand), headers: chance(rand, 0.5) ? { "accept-encoding": segment(rand) } : segment(rand) },
      ),
    }),
    () => ({ tags: items(tag) }),
    () => ({ prefixes: items(prefix) }),
    () => ({ hosts: items(hostItem) }),
    () => ({ purge_everything: pick(rand, [true, false, "true", 1, null]) }),
    () => ({ files: [purgeUrl(rand)], tags: [tag()] }),
    () => ({ files: purgeUrl(rand) }),
    () => ({ soft: pick(rand, [true, "yes", 1]), tags: items(tag) }),
    () => ({ [segment(rand)]: [segment(rand)] }),
    () => pick(rand, [null, [], "files", 1, {}]),
  ])();
}

function revision(rand: Rand): unknown {
  const num = () =>
    pick(rand, [1, 2, 7, 0, -1, 1.5, 1e3, 1e309, 2 ** 53, Number.MAX_SAFE_INTEGER, "1", "abc", null, [], {}]);
  return {
    id: num(),
    parentId: num(),
    timestamp: pick(rand, [
      "2020-01-01T00:00:09Z",
      "2019-12-31T23:59:59Z",
      "2020-02-30T00:00:00Z",
      "abc",
      "",
      0,
      "2020-01-01T00:00:09.000Z",
      "+275760-09-13T00:00:00Z",
    ]),
    contributor: pick(rand, ["Fuzzer", "\u202eevil", "a\u200bb", "", "x".repeat(1000), 1]),
    comment: pick(rand, ["", "fuzz", "\ud800", null]),
    model: pick(rand, ["wikitext", "html", "css", "text", "javascript", "json", "binary", "__proto__", "toString", ""]),
    ...(chance(rand, 0.3)
      ? { format: pick(rand, ["text/html", "image/svg+xml", "x", "text/plain; charset=utf-16", ""]) }
      : {}),
    text: pick(rand, ["fuzzed text\n", "", "\ud800", "<script>fetch('/dashboard')</script>", "é".repeat(3000)]),
    ...(chance(rand, 0.2) ? { sha1: pick(rand, ["0".repeat(31), "z".repeat(31), "abc", null]) } : {}),
    ...(chance(rand, 0.2) ? { tags: pick(rand, [["a"], ["a,b"], "a", [1]]) } : {}),
  };
}

/** A body that is malformed as JSON, or valid JSON of the wrong shape. */
function junkJson(rand: Rand): string {
  return pick(rand, [
    "",
    "{",
    "}",
    "[",
    "{]",
    "{'a':1}",
    '{"a":}',
    '{"a":1,}',
    "nul",
    "NaN",
    "undefined",
    "1e309",
    '"\\ud800"',
    "\u0000",
    "\ufeff{}",
    '{"revisions":',
    '{"__proto__":{"x":1}}',
    "[".repeat(500) + "]".repeat(500),
    '{"a":'.repeat(300) + "1" + "}".repeat(300),
    '{"suppressed":"true"}',
    '{"suppressed":1}',
    "null",
    "[]",
    "true",
    "0",
    '{"revisions":null}',
    '{"revisions":{}}',
    '{"revisions":[]}',
    '{"revisions":[null]}',
    '{"revisions":[1,2,3]}',
    `{"revisions":[${"{},".repeat(50)}{}]}`,
  ]);
}

const TIER_NAMES = [
  "weur/weur-a",
  "weur%2Fweur-a",
  "upper/enam-b",
  "enam/enam-a",
  "nope/nope",
  "..%2F..",
  "%ff",
  "a".repeat(300),
];

interface Fuzzed {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

type Route = Omit<Fuzzed, "headers"> & { headers?: Record<string, string> };

const DASHBOARD_PATHS = [
  "/dashboard",
  "/dashboard/",
  "/dashboard/purges",
  "/dashboard/purges/x",
  "/dashboard/api/purges/x",
  "/dashboard/health",
  "/dashboard/storage",
  "/dashboard/login",
  "/dashboard/logout",
  "/dashboard/live.js",
  "/dashboard/nope",
  "/dashboard/takedowns",
  "/dashboard/follow",
  "/dashboard/pages/Fuzz_page",
  "/dashboard/pages/Fuzz_page/deletion",
  "/dashboard/pages/Fuzz_page/revisions/1",
];
const FORM_TYPES = [
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=utf-16",
  "multipart/form-data",
  "multipart/form-data; boundary=x",
  "multipart/form-data; boundary=",
  'multipart/form-data; boundary="',
  "text/plain",
  "application/json",
];

/** A multipart body, well-formed or cut short, for the boundary `x`. */
function multipart(rand: Rand): string {
  const part = `--x\r\ncontent-disposition: form-data; name="${pick(rand, ["kind", "items", "csrf", "token", "", '"'])}"\r\n\r\n${segment(rand)}\r\n`;
  return pick(rand, [
    `${part}--x--\r\n`,
    part,
    "--x\r\n",
    "--x--",
    "",
    `${part}${part}--x--\r\n`,
    '--x\r\ncontent-disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhello\r\n--x--\r\n',
  ]);
}

interface Sessions {
  operator: Signed;
  writer: Signed;
  dictionary: string;
}

function authHeaders(rand: Rand, s: Sessions): Record<string, string> {
  return pick(rand, [
    () => ({}),
    () => ({ authorization: `Bearer ${TOKENS.write}` }),
    () => ({ authorization: `Bearer ${TOKENS.purge}` }),
    () => ({ authorization: `Bearer ${TOKENS.operator}` }),
    () => ({ authorization: `Bearer ${TOKENS.operator}` }),
    () => ({ authorization: `Bearer ${TOKENS.expired}` }),
    () => ({
      authorization: pick(rand, [
        "Bearer",
        "Bearer ",
        "bearer test-operator-token",
        "Basic dGVzdDp0ZXN0",
        `Bearer ${"x".repeat(5000)}`,
        "Bearer test-operator-token test",
        "Bearer \u00ff",
        "Token test-operator-token",
      ]),
    }),
    () => ({ cookie: s.operator.cookie }),
    () => ({ cookie: s.writer.cookie }),
    () => ({
      cookie: pick(rand, [
        "palimpsest_session=",
        "palimpsest_session=abc.def",
        `palimpsest_session=${"a".repeat(4000)}`,
        `${s.operator.cookie}x`,
        `${s.operator.cookie}; ${s.writer.cookie}`,
        "palimpsest_session=%ff%00",
      ]),
    }),
  ])();
}

const HEADER_JUNK: Record<string, readonly string[]> = {
  range: [
    "bytes=0-0",
    "bytes=abc",
    "bytes=5-1",
    "bytes=-0",
    "bytes=-999999999999",
    "bytes=99999999999999999999-",
    "bytes=0-0,1-1,2-2,3-3,4-4,5-5,6-6,7-7,8-8,9-9,10-10",
    "items=0-1",
    "bytes=",
    "bytes=1.5-2",
    "bytes=1e3-",
    "bytes=0-1,,",
    "bytes=--1",
  ],
  "if-none-match": ["*", '"abc"', "abc", 'W/"x"', '"', '""', "W/", '*, "a"', '"a", "b",', "x".repeat(3000)],
  "if-match": ["*", '"abc"', "junk"],
  "if-modified-since": [
    "Wed, 21 Oct 2015 07:28:00 GMT",
    "junk",
    "0",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "Sat, 01 Jan 275760 00:00:00 GMT",
  ],
  "if-range": ['"abc"', "Wed, 21 Oct 2015 07:28:00 GMT", "junk"],
  "accept-encoding": [
    "br",
    "gzip",
    "dcb",
    "dcb, br",
    "*",
    "*;q=0",
    "identity;q=0",
    "br;q=abc",
    "gzip;q=1e9",
    "br;q=-1",
    ",,,",
    "x".repeat(2000),
    "zstd, dcz",
    "gzip;q=0, br;q=0, identity;q=0",
  ],
  "available-dictionary": [
    ":abc:",
    ":",
    "::",
    "abc",
    ":AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:",
    ":====:",
    `:${"A".repeat(500)}:`,
    ":\u00ff:",
  ],
  "dictionary-id": ['"x"', "junk", '"' + "a".repeat(2000) + '"'],
  "accept-datetime": [
    "Wed, 01 Jan 2020 00:00:03 GMT",
    "junk",
    "0",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "Mon, 01 Jan 0001 00:00:00 GMT",
    "Sat, 13 Sep 275760 00:00:00 GMT",
    "2020-01-01T00:00:00Z",
    "",
  ],
  accept: [
    "text/html",
    "application/json",
    "*/*",
    "text/html;q=abc",
    "application/link-format",
    "text/html;q=0, application/json;q=0",
    "x".repeat(2000),
    "",
  ],
  "content-type": [
    "application/json",
    "application/json; charset=utf-16",
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "multipart/form-data; boundary=x",
    "multipart/form-data; boundary=",
    "application/problem+json",
    "junk",
    "",
  ],
  origin: [ORIGIN, ORIGIN, "null", "http://evil.example", "http://archive.test.evil.example", ""],
  "x-palimpsest-colo": ["LHR", "SJC", "NRT", "junk", "", "lhr", "\u00ff", "x".repeat(300)],
  "x-request-id": ["abc", "x".repeat(500), "\u00e9", "a b"],
  "cf-connecting-ip": ["192.0.2.1", "2001:db8::1", "junk", "", "::ffff:192.0.2.1"],
  host: ["evil.example", "archive.test", "", "archive.test:99999"],
  "x-forwarded-host": ["evil.example"],
  "cache-control": ["no-cache", "max-age=abc", "only-if-cached"],
};

function headersFor(rand: Rand, s: Sessions): Record<string, string> {
  const headers: Record<string, string> = { ...authHeaders(rand, s) };
  const names = Object.keys(HEADER_JUNK);
  const n = Math.floor(rand() * 4);
  for (let i = 0; i < n; i++) {
    const name = pick(rand, names);
    headers[name] =
      name === "available-dictionary" && chance(rand, 0.4) ? s.dictionary : pick(rand, HEADER_JUNK[name]!);
  }
  return headers;
}

function randomBytes(rand: Rand, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rand() * 256));
}

/** A dashboard form, urlencoded by hand so broken escapes survive. */
function dashboardForm(rand: Rand, s: Sessions, purge: boolean): string {
  const csrf = pick(rand, [
    s.operator.csrf,
    s.operator.csrf,
    s.writer.csrf,
    "",
    "junk",
    "%ff",
    s.operator.csrf.toUpperCase(),
  ]);
  // A form carries well-formed text only: a lone surrogate cannot be percent-encoded.
  const lines = Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
    chance(rand, 0.7) ? purgeUrl(rand) : segment(rand),
  )
    .join(pick(rand, ["\n", "\r\n", "\r"]))
    .replace(/[\ud800-\udfff]/g, "");
  const fields = purge
    ? [
        `kind=${pick(rand, ["files", "tags", "prefixes", "hosts", "everything", "", "junk", "%ff", "__proto__"])}`,
        `items=${encodeURIComponent(lines)}`,
        ...(chance(rand, 0.3) ? [`soft=${pick(rand, ["1", "on", "yes", "%"])}`] : []),
      ]
    : [`token=${pick(rand, ["", "junk", TOKENS.expired, "%ff", "x".repeat(3000)])}`];
  const body = [...fields, `csrf=${csrf}`];
  if (chance(rand, 0.15))
    body.push(pick(rand, ["%", "=", "&&", "csrf", "kind=files&kind=tags", "items[]=x", "%zz=%zz"]));
  return body.join("&");
}

/** One hostile request, for any route. */
function fuzzed(rand: Rand, s: Sessions): Fuzzed {
  const headers = headersFor(rand, s);
  const t = () => title(rand);
  const routes: Array<() => Route> = [
    () => ({ method: "GET", path: `/page/${t()}${queryString(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/${id(rand)}${queryString(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/${id(rand)}${queryString(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/history${queryString(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/compare${queryString(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/compare?from=${id(rand)}&to=${id(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/compare/${id(rand)}...${id(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/compare/${segment(rand)}` }),
    () => ({ method: "GET", path: `/page/${t()}/${id(rand)}/${segment(rand)}` }),
    () => ({
      method: "GET",
      path: `/timemap/${pick(rand, ["link", "json", "html", segment(rand)])}/${t()}${queryString(rand)}`,
    }),
    () => ({ method: "GET", path: `/timemap/link/${t()}?${pick(rand, ["after", "before"])}=${id(rand)}` }),
    () => ({
      method: "GET",
      path: `/web/${pick(rand, ["2020", "20200101000003", "0", "99999999999999", "202013", "20200230", "1".repeat(15), segment(rand)])}/${t()}`,
    }),
    () => ({ method: "GET", path: `/web/${segment(rand)}/${t()}/${segment(rand)}` }),
    () => ({ method: "GET", path: `/view/${t()}${queryString(rand)}` }),
    () => ({ method: "GET", path: `/view/${t()}/${id(rand)}${queryString(rand)}` }),
    () => ({
      method: "GET",
      path: `/view/${t()}?${pick(rand, ["year", "month", "day", "at"])}=${pick(rand, QUERY_VALUES)}&${pick(rand, ["year", "month", "day"])}=${id(rand)}`,
    }),
    () => ({
      method: "GET",
      path: `/view/${t()}/${id(rand)}?asof=${pick(rand, [...QUERY_VALUES, "00000000000000", "99991231235959", segment(rand)])}`,
    }),
    () => ({ method: "GET", path: `/search${queryString(rand)}` }),
    () => ({ method: "GET", path: `/search?q=${segment(rand)}&after=${segment(rand)}` }),
    () => ({
      method: "GET",
      path:
        pick(rand, [
          "/",
          "/healthz",
          "/api/limits",
          "/api/tiers",
          "/api/purges",
          "/dashboard",
          "/dashboard/login",
          "/dashboard/health",
          "/dashboard/storage",
          "/dashboard/live.js",
          "/dashboard/purges",
        ]) + queryString(rand),
    }),
    () => ({ method: "GET", path: `/${segment(rand)}/${segment(rand)}` }),
    () => ({ method: "GET", path: `//page//${t()}//${id(rand)}/` }),
    () => ({ method: "GET", path: `/page/${nearLimit(rand, `${ORIGIN}/page/`.length)}` }),
    () => ({ method: "GET", path: `/page/${TEXT_PAGE}/${nearLimit(rand, `${ORIGIN}/page/${TEXT_PAGE}/`.length)}` }),
    () => ({
      method: "GET",
      path: `/page/${TEXT_PAGE}?at=${nearLimit(rand, `${ORIGIN}/page/${TEXT_PAGE}?at=`.length)}`,
    }),
    () => ({
      method: "POST",
      path: `/api/pages/${t()}/revisions${queryString(rand)}`,
      body: chance(rand, 0.6)
        ? JSON.stringify({ revisions: Array.from({ length: 1 + Math.floor(rand() * 3) }, () => revision(rand)) })
        : junkJson(rand),
    }),
    () => ({
      method: "PUT",
      path: `/api/pages/${t()}/revisions/${id(rand)}/suppression`,
      body: chance(rand, 0.5)
        ? JSON.stringify({
            suppressed: pick(rand, [true, false, "true", 1, null, undefined]),
            comment: pick(rand, [true, false, undefined, "yes"]),
            contributor: pick(rand, [true, false, undefined, 0]),
            reason: pick(rand, [undefined, "", " ", "why", segment(rand), "r".repeat(2000)]),
          })
        : junkJson(rand),
    }),
    () => ({
      method: "PUT",
      path: `/api/pages/${t()}/deletion${queryString(rand)}`,
      body: chance(rand, 0.5)
        ? JSON.stringify({
            deleted: pick(rand, [true, false, "true", 1, null]),
            reason: pick(rand, [undefined, "", "why", segment(rand), "r".repeat(2000)]),
          })
        : junkJson(rand),
    }),
    () => ({ method: "DELETE", path: `/api/pages/${segment(rand)}${queryString(rand)}` }),
    () => ({ method: "GET", path: `/api/takedowns${queryString(rand)}` }),
    () => ({ method: "GET", path: `/api/takedowns?page=${segment(rand)}&before=${segment(rand)}` }),
    () => ({ method: "GET", path: `/api/follow${queryString(rand)}` }),
    () => ({
      method: "POST",
      path: "/api/follow/retry",
      body: chance(rand, 0.5) ? JSON.stringify({ title: segment(rand) }) : junkJson(rand),
    }),
    () => ({ method: "GET", path: `/dashboard/pages/${t()}${queryString(rand)}` }),
    () => ({ method: "GET", path: `/dashboard/takedowns${queryString(rand)}` }),
    () => ({ method: "GET", path: `/dashboard/follow${queryString(rand)}` }),
    () => ({
      method: "POST",
      path: `/dashboard/pages/${t()}/${pick(rand, ["deletion", `revisions/${id(rand)}`])}`,
      body: `reason=${segment(rand)}&deleted=1&content=1&csrf=${segment(rand)}`,
    }),
    () => ({ method: "GET", path: `/api/pages/${t()}/stats${queryString(rand)}` }),
    () => ({ method: "GET", path: `/api/pages/${t()}/revisions/${id(rand)}` }),
    () => ({
      method: "POST",
      path: "/api/purges",
      body: chance(rand, 0.75) ? JSON.stringify(purgeBody(rand)) : junkJson(rand),
    }),
    // Well-formed purges and writes with one hostile part, so some get past validation into the queues and stores.
    () => ({
      method: "POST",
      path: "/api/purges",
      body: JSON.stringify(
        pick(rand, [
          { files: [`${ORIGIN}/page/${title(rand)}/${id(rand)}`, `${ORIGIN}/page/${TEXT_PAGE}/${id(rand)}`] },
          { tags: [`page:${segment(rand)}`] },
          { prefixes: [`archive.test/page/${title(rand)}`] },
          { files: [`${ORIGIN}/timemap/link/${title(rand)}?after=${id(rand)}`] },
        ]),
      ),
    }),
    () => ({
      method: "POST",
      path: `/api/pages/${title(rand)}/revisions`,
      body: JSON.stringify({
        revisions: [
          {
            id: 7 + Math.floor(rand() * 1000),
            parentId: null,
            timestamp: "2021-01-01T00:00:00Z",
            contributor: segment(rand),
            comment: segment(rand),
            model: "wikitext",
            text: `${segment(rand)}\n`,
          },
        ],
      }),
    }),
    () => ({
      method: "GET",
      path: `/api/purges/${segment(rand)}?wait=${pick(rand, ["0", "1", "abc", "1.5", "-1", "999", "1e3", "", "%"])}`,
    }),
    () => ({ method: "GET", path: `/api/purges?before=${segment(rand)}` }),
    // Real tiers only get restoring or invalid bodies: a fault a valid body sets would make 503s by design.
    () => ({
      method: "PUT",
      path: `/api/dev/faults/tiers/${pick(rand, TIER_NAMES)}`,
      body: pick(rand, [
        "{}",
        '{"unavailable":false}',
        '{"unavailable":"yes"}',
        '{"delayMs":-1}',
        '{"delayMs":1.5}',
        '{"x":1}',
        junkJson(rand),
      ]),
    }),
    () => ({
      method: "POST",
      path: `/api/dev/codec/gzip?op=${pick(rand, ["compress", "decompress", "x", ""])}&rounds=${pick(rand, ["0", "1", "2", "abc", "-1", "1.5", "1e3", "99999999"])}`,
      body: chance(rand, 0.5) ? randomBytes(rand, Math.floor(rand() * 200)) : "\x1f\x8b\x08\x00junk",
    }),
    () => ({ method: "POST", path: "/dashboard/purges", body: dashboardForm(rand, s, true) }),
    () => ({ method: "POST", path: "/dashboard/purges", body: dashboardForm(rand, s, true) }),
    () => ({ method: "POST", path: "/dashboard/login", body: dashboardForm(rand, s, false) }),
    // Takedown forms with a session's real CSRF token (or a bad one), so some reach the stores.
    () => ({
      method: "POST",
      path: `/dashboard/pages/${t()}/${pick(rand, ["deletion", `revisions/${id(rand)}`])}`,
      body: [
        `csrf=${pick(rand, [s.operator.csrf, s.writer.csrf, "junk"])}`,
        `reason=${pick(rand, ["", "%20", "fuzz", encodeURIComponent(segment(rand).replace(/[\ud800-\udfff]/g, "")), "r".repeat(3000)])}`,
        `deleted=${pick(rand, ["1", "0", "", "x"])}`,
        ...["content", "comment", "contributor"].flatMap((f) => [
          `${f}=${pick(rand, ["1", "", "on", "%ff"])}`,
          `was_${f}=${pick(rand, ["1", "0", "", "x"])}`,
        ]),
      ].join("&"),
    }),
    // Never the signed-in sessions' own CSRF token: they must outlive the run.
    () => ({ method: "POST", path: "/dashboard/logout", body: `csrf=${pick(rand, ["", "junk", "%ff"])}` }),
    () => ({ method: "GET", path: `/dashboard/purges/${segment(rand)}` }),
    () => ({ method: "GET", path: `/dashboard/api/purges/${segment(rand)}` }),
    () => ({ method: "GET", path: `/dashboard/purges?before=${segment(rand)}` }),
    () => ({ method: "GET", path: `/dashboard/${segment(rand)}` }),
    () => ({
      method: "POST",
      path: pick(rand, DASHBOARD_PATHS),
      headers: { "content-type": pick(rand, FORM_TYPES) },
      body: chance(rand, 0.5) ? multipart(rand) : dashboardForm(rand, s, chance(rand, 0.5)),
    }),
  ];
  const base = pick(rand, routes)();
  Object.assign(headers, base.headers);
  let method = chance(rand, 0.12) ? pick(rand, METHODS) : base.method;
  if (base.body === undefined && (method === "POST" || method === "PUT" || method === "PATCH") && chance(rand, 0.5))
    base.body = chance(rand, 0.5) ? junkJson(rand) : randomBytes(rand, 64);
  if (base.path.startsWith("/dashboard/") && method === "POST" && !("content-type" in headers))
    headers["content-type"] = "application/x-www-form-urlencoded";
  if (base.path.startsWith("/api/") && base.body !== undefined && !("content-type" in headers) && chance(rand, 0.8))
    headers["content-type"] = "application/json";
  if (base.path.startsWith("/dashboard/") && !("origin" in headers) && chance(rand, 0.85)) headers.origin = ORIGIN;
  // Most requests come from an address of their own, so failed authentications (limited per client)
  // do not lock the whole run out of the routes behind a token; the rest share one, and meet that 429.
  if (!("cf-connecting-ip" in headers) && chance(rand, 0.9))
    headers["cf-connecting-ip"] =
      `10.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`;
  // Clients cannot send a body with GET or HEAD.
  const body = method === "GET" || method === "HEAD" ? undefined : base.body;
  if (method === "GET" && base.method !== "GET" && base.body !== undefined) method = "GET";
  return { method, path: base.path, headers, ...(body === undefined ? {} : { body }) };
}

function describeRequest(n: number, f: Fuzzed): string {
  const body =
    f.body === undefined
      ? "(none)"
      : typeof f.body === "string"
        ? JSON.stringify(f.body.length > 4000 ? `${f.body.slice(0, 4000)}…(${f.body.length} chars)` : f.body)
        : `bytes ${Array.from(f.body, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  return `request #${n} (seed ${SEED}): ${f.method} ${ORIGIN}${f.path.length > 4000 ? `${f.path.slice(0, 4000)}…(${f.path.length} chars)` : f.path}\nheaders: ${JSON.stringify(f.headers)}\nbody: ${body}`;
}

async function sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest));
}

describe("the route fuzzer", () => {
  let sessions: Sessions;

  beforeAll(async () => {
    await appendOk(TEXT_PAGE, linearHistory(6));
    await appendOk(
      HTML_PAGE,
      linearHistory(3, 1, (i) => `<!doctype html><p>revision ${i}</p><script>fetch("/dashboard")</script>\n`).map(
        (r) => ({ ...r, model: "html" as const }),
      ),
    );
    await appendOk(
      SUB_PAGE,
      linearHistory(2, 1, (i) => `subpage ${i}\n`),
    );
    const operator = await login(TOKENS.operator);
    const writer = await login(TOKENS.write);
    sessions = { operator, writer, dictionary: `:${await sha256Base64(linearHistory(6)[3]!.text)}:` };
    // The helpers agree with the pages: a signed-in dashboard shows its CSRF token.
    expect(csrfOf(await (await request("/dashboard", { headers: { cookie: operator.cookie } })).text())).toBe(
      operator.csrf,
    );
  }, 30_000);

  it(`answers ${REQUESTS} hostile requests, anonymous and with every scope, without a 5xx`, async () => {
    const rand = mulberry32(SEED);
    const failures: Array<{ n: number; text: string }> = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    let unsendable = 0;
    let n = 0;
    /** Sends one request; a 5xx, or a throw out of the app, is a failure. */
    const send = async (index: number, f: Fuzzed, headers: Headers): Promise<void> => {
      let res: Response;
      try {
        res = await request(f.path, { method: f.method, headers, ...(f.body === undefined ? {} : { body: f.body }) });
      } catch (err) {
        failures.push({
          n: index,
          text: `${describeRequest(index, f)}\nthrew: ${err instanceof Error ? err.stack : String(err)}`,
        });
        return;
      }
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const text = await res.text();
      if (res.status >= 500)
        failures.push({
          n: index,
          text: `${describeRequest(index, f)}\nanswer: ${res.status} ${res.headers.get("content-type")} ${text.slice(0, 600)}`,
        });
    };
    while (sent < REQUESTS) {
      // Requests are drawn in order from the seed, then sent a few at a time: the same requests every run.
      const batch: Array<Promise<void>> = [];
      while (batch.length < CONCURRENCY && sent < REQUESTS) {
        const f = fuzzed(rand, sessions);
        const index = n++;
        let headers: Headers;
        try {
          headers = new Request(`${ORIGIN}${f.path}`, {
            method: f.method,
            headers: f.headers,
            ...(f.body === undefined ? {} : { body: f.body }),
          }).headers;
        } catch {
          // Not expressible through fetch (e.g. a header value outside Latin-1): no client can send it either.
          unsendable++;
          continue;
        }
        sent++;
        batch.push(send(index, f, headers));
      }
      await Promise.all(batch);
    }
    failures.sort((a, b) => a.n - b.n);
    const summary = `sent ${sent} (${unsendable} unsendable skipped); statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`;
    console.log(summary);
    if (failures.length > 0)
      console.error(
        `${failures.length} requests got a 5xx; the first:\n${failures[0]!.text}\n\nothers:\n${failures
          .slice(1, 40)
          .map((f) => f.text)
          .join("\n\n")}`,
      );
    expect(failures[0]?.text, summary).toBeUndefined();
    // The sweep reached the routes it means to: reads found real revisions, and refusals were answered as such.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(200);
    expect(statuses.get(400) ?? 0).toBeGreaterThan(500);
  }, 120_000);
});
