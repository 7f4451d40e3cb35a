/**
 * Every platform and product limit lives in this one table, grouped by
 * concern. Every limit is a number; its doc comment says in what unit. Code
 * that enforces a limit reads it from here, and the error it raises names the
 * entry by its dotted path (`"http.maxUrlLength"`), so a client can tell
 * exactly which limit it hit.
 *
 * @example
 * ```ts
 * import { LIMITS } from "./limits.ts";
 * import { ProblemError } from "./http/problem.ts";
 *
 * if (url.length > LIMITS.http.maxUrlLength) {
 *   throw new ProblemError({ status: 414, code: "url_too_long", title: "URL too long", limit: "http.maxUrlLength" });
 * }
 * ```
 */
export const LIMITS = {
  http: {
    /** Longest request URL, in UTF-16 code units, the workers accept; longer gets 414. */
    maxUrlLength: 8_192,
    /** Largest body, in bytes, of the small JSON requests (suppression, purge status). */
    maxSmallBodyBytes: 64 * 1024,
    /**
     * Most containers (objects, arrays) open at once in a JSON request body, checked as its bytes
     * arrive, before anything parses them. The deepest body the API takes (a revision's tags, a
     * purged file's headers) nests 4 deep; 24 MiB of `[` would otherwise nest twelve million deep.
     */
    maxJsonDepth: 16,
    /**
     * Most values (objects, arrays, strings, numbers, literals) in a JSON request body without a
     * bound of its own, counted as its bytes arrive: a purge of 500 files (purge.maxFiles), each
     * an object with its URL and up to 13 headers, is 500 × 16. Without it 1.5 MiB of `{}` parses
     * into 780,000 objects.
     */
    maxJsonValues: 8_192,
    /** Largest body, in bytes, the development-only codec timing route takes (`bench codecs --worker-gzip`). */
    maxDevCodecBodyBytes: 4 * 1024 * 1024,
    /** Most rounds one request to the development-only codec timing route runs. */
    maxDevCodecRounds: 200,
    /** Largest output, in bytes, that route's decompression may produce before it is refused. */
    maxDevCodecOutputBytes: 64 * 1024 * 1024,
    /**
     * Clients over the failed-authentication limit an isolate remembers (src/http/auth-failures.ts); past it the oldest
     * are forgotten.
     */
    authFailureClientsRemembered: 10_000,
  },
  page: {
    /** Longest title, in bytes of UTF-8 (MediaWiki's own limit). */
    maxTitleBytes: 255,
    /** Largest revision text, in bytes of UTF-8. */
    maxRevisionBytes: 16 * 1024 * 1024,
    /** Longest edit comment, in bytes of UTF-8. */
    maxCommentBytes: 2048,
    /** Longest contributor name, in bytes of UTF-8. */
    maxContributorBytes: 255,
    /** Cache tags a writer may set on one revision. */
    maxTagsPerRevision: 16,
    /** Longest reason for a takedown (hiding a revision's fields, deleting or restoring a page), in bytes of UTF-8. */
    maxReasonBytes: 1024,
  },
  storage: {
    /** Workers KV's largest value, in bytes; bigger blobs are split. */
    kvMaxValueBytes: 25 * 1024 * 1024,
    /** How long, in seconds, a data centre may cache an immutable blob read from KV. */
    kvCacheTtlSeconds: 86_400,
    /** Attempts a read makes at a blob KV does not show yet (just written elsewhere) before answering 503. */
    blobReadAttempts: 4,
    /** First wait, in milliseconds, before reading a missing blob again; doubles per attempt, with jitter. */
    blobRetryBaseMs: 100,
    /** Seconds a client is told to wait (Retry-After) when a blob is still missing. */
    blobRetryAfterSeconds: 5,
    /** Bytes of parsed (immutable) blobs an isolate keeps for reads. */
    blobCacheBytes: 24 * 1024 * 1024,
    /**
     * Decoded size of a blob's header (its records' metadata) a reader accepts: a corrupt one is refused, not inflated
     * without bound.
     */
    maxBlobHeaderBytes: 4 * 1024 * 1024,
    /**
     * Decoded size of one PageStore metadata record (16 revisions' contributor, comment, hashes and tags) a reader
     * accepts.
     */
    maxMetaRecordBytes: 4 * 1024 * 1024,
    /** Revisions accepted in one write request. */
    maxBatchRevisions: 500,
    /**
     * Most JSON values in one write request, counted as its bytes arrive: maxBatchRevisions × 28,
     * for a revision's object, its ten fields and 16 tags (page.maxTagsPerRevision), with one to
     * spare. 24 MiB of `{}` would otherwise parse into twelve million objects (4 s of CPU, 1 GB).
     */
    maxJsonValues: 14_000,
    /**
     * Body size, in bytes, accepted by one write request, counted as it is
     * read (chunked bodies too). Below Durable Object RPC's 32 MiB argument
     * limit, with room for the batch's metadata: texts cross it as UTF-8.
     */
    maxRequestBytes: 24 * 1024 * 1024,
    /**
     * Bytes of revision text one commit's layout repairs (layout-writer.ts, keeping a bracket within
     * the decode budget) may decode and re-encode: anchors re-encoded and closed groups cut again.
     * Past it, a bracket that needs more repair is left out (its anchor keeps its left bracket), so
     * the work is bounded and the group members held decoded are at most half of it: a commit past a
     * Durable Object's CPU or memory would fail the same way on every retry. The
     * most the shared histories' repairs used in one commit of 50 revisions: 152.2 MB on w3c-aria,
     * 128.1 MB on whatwg-fetch, 69.8 MB on w3c-webdriver; at 128 MiB w3c-aria stored 9.6 % more, at
     * 32 MiB whatwg-fetch 20 % and w3c-webdriver 9.5 % more (LAYOUT-TRADEOFFS.md).
     */
    maxLayoutRepairBytes: 160 * 1024 * 1024,
  },
  importMarkup: {
    /** Longest element, attribute or entity name, in characters, an export may use. */
    maxNameChars: 1024,
    /** Deepest element nesting an export may use. */
    maxDepth: 64,
    /** Most attributes on one element. */
    maxAttributes: 64,
    /** Characters of attribute values on one element (saxes holds them whole). */
    maxAttributeChars: 1 << 16,
  },
  importer: {
    /**
     * Most pages `palimpsest import --concurrency` writes at once. The revision text their batches
     * hold is bounded by `heldBytes` (or --batch-bytes) together, whatever this is.
     */
    maxConcurrency: 32,
    /**
     * Bytes of revision text `palimpsest import` holds at once across all pages in flight, when
     * --batch-bytes does not say (nor more than the archive's storage.maxRequestBytes): a page's batch is
     * cut when this is taken, and one revision bigger than it goes alone.
     */
    heldBytes: 8 * 1024 * 1024,
  },
  history: {
    /** Largest `limit` a history page accepts. */
    maxPageSize: 500,
    /** `limit` when none is given. */
    defaultPageSize: 50,
  },
  export: {
    /**
     * Most revisions one `GET /page/{title}/export` answers (`limit`, and its default); its `Link: rel="next"` goes on.
     */
    maxRevisions: 1_000,
    /**
     * Most bytes of revision text one export answer carries (at least one revision, whatever its size):
     * the CPU and memory of one request stay bounded (decoding, hashing and escaping 32 MiB takes about
     * 0.3 s here), and `Link: rel="next"` goes on from there. At 256 MiB, answers of 200 MB and more
     * left wrangler dev's workerd unable to answer the next export with a token for minutes; answers
     * of 55-69 MB, six in a row on one connection, never did.
     */
    maxBytes: 32 * 1024 * 1024,
    /**
     * Most bytes of revision text one anonymous export answer carries (a `backup` token's carry
     * `maxBytes`): small enough that the answer's XML fits one tier entry (tiers.maxEntryBytes), so a
     * repeated anonymous export is a tier hit, not a decode. Escaping grows HTML by about a third
     * (32 MiB of whatwg-html-2006 is 43 MB of XML), so 4 MiB of text comes to about 5.5 MB. An
     * answer whose XML still outgrows an entry (markup-dense text, or one revision over the bound)
     * streams past the tiers as a backup does. `Link: rel="next"` goes on from there.
     */
    anonymousMaxBytes: 4 * 1024 * 1024,
    /**
     * Anonymous exports one client (src/http/rate-limit.ts `clientOf`) may ask per minute, tier hits and
     * 304s included; past it 429 with Retry-After. The EXPORT_RATE binding in wrangler.toml counts it
     * (its `limit`, period 60 s; test/node/repo/export-rate-binding.unit.test.ts checks they agree).
     * Why: before, eight clients exporting at once held a normal read at 1.6 s instead of 30 ms. A
     * `backup` token is not counted.
     */
    anonymousPerMinute: 30,
    /**
     * Revisions an export reads from its PageStore at once: one batch's metadata is what it holds besides one stream's
     * text.
     */
    batchRevisions: 64,
    /**
     * Titles one `GET /api/pages` lists (`limit`, and its default); each of the 32 directory shards sends at most this
     * many plus one.
     */
    pagesPerList: 500,
  },
  memento: {
    /**
     * Mementos per TimeMap page (RFC 7089 §5 TimeMaps, paged past this); pages link each other with rel="prev"/"next".
     */
    timemapPageSize: 1_000,
    /**
     * Most revisions a page's memento index lists (one history page, so at most `history.maxPageSize`).
     * Up to it, every revision's Memento links come from that one answer, which a write changes once;
     * a longer page's revisions are each asked for their place on their own, which every write changes.
     */
    indexMaxRevisions: 500,
  },
  browse: {
    /**
     * Titles a search page lists; each directory shard sends at most this many (plus one), so a search reads a bounded
     * amount.
     */
    searchResults: 25,
    /** Recently changed pages the front page lists. */
    recentPages: 10,
    /** Largest revision, in bytes, a compare page diffs; past it the page links the raw revisions instead. */
    compareMaxRevisionBytes: 2 * 1024 * 1024,
    /** Most lines per revision a compare page diffs. */
    compareMaxLines: 20_000,
    /**
     * Most lines inserted plus deleted a compare page looks for before giving
     * up: the diff's time is O((N + M) · this). Measured in Node 20: two
     * unrelated 20,000-line texts give up after 260 ms at 1,000 (730 ms at 2,000).
     */
    compareMaxEditLength: 1_000,
    /** Lines (changed and context) a compare page shows; the rest is summarised. */
    compareMaxShownLines: 4_000,
    /**
     * Diff steps one comparison may take in all, its line diff and every word
     * diff together (src/compare/myers.ts: a step is a diagonal visited or two
     * interned lines or words compared, the same cost at any length). The
     * line diff past it answers "too big"; word marks stop where it runs out.
     * Why: a bound per line let 500 long changed lines cost 2 s of CPU per
     * request. Two million steps take about 12 ms in Node 20; the
     * largest diff the other compare limits allow (20,000 lines, 1,000 edits)
     * takes under half of them.
     */
    compareMaxWork: 2_000_000,
    /**
     * Characters of line text a compare page shows in all; past it the table stops and says so. Bounds the answer the
     * tiers keep (and the HTML) near 1 MB.
     */
    compareMaxShownChars: 256 * 1024,
    /**
     * Years a page's time line lists (the history's links by year, the viewer's): each is one
     * index walk in its PageStore, so a page dated across millennia costs no more than this.
     */
    timelineYears: 100,
    /**
     * Largest text revision, in bytes, the revision viewer reads to show; past it the viewer links the raw revision.
     */
    viewMaxRevisionBytes: 2 * 1024 * 1024,
    /**
     * Characters of a text revision the viewer shows; past it the text stops and says so. Bounds the page near 1 MB.
     */
    viewMaxShownChars: 256 * 1024,
  },
  tiers: {
    /** Bytes of LZ4-compressed entries a TierCache keeps in memory. */
    memoryBytes: 16 * 1024 * 1024,
    /** Largest entry body, in bytes, a tier stores (bigger ones pass through uncached). */
    maxEntryBytes: 8 * 1024 * 1024,
    /**
     * Bytes of entries one TierCache keeps in SQLite (key, meta, LZ4 body and tag rows;
     * src/tiers/tier-store.ts). A put past it evicts the least recently read entries.
     * Why: every answer a tier serves used to stay for good, so one reader walking old
     * revisions filled every tier it reached, towards a SQLite Durable Object's 10 GB
     * and storage billed per GB-month for every copy. 256 MiB holds thousands of large
     * revisions per tier, and wrangler.toml's 30 tiers stay within 7.5 GiB together.
     * Measured: a walk of whatwg-html-2006 (300 revisions, 308 MB; identity, gzip, br, dcb)
     * from one colo left 57-65 MB of SQLite in each of the 6 tiers it reached; with this
     * lowered to 32 MiB the same walk left 33.0-33.2 MB stored, 33.3-33.5 MB of SQLite each.
     */
    storedBytes: 256 * 1024 * 1024,
    /** How long, in milliseconds, a read waits on a regional or upper tier before going around it. */
    hopTimeoutMs: 5_000,
  },
  purge: {
    /** Events a PurgeQueue keeps in its log; a tier further behind flushes everything. */
    retainedEvents: 10_000,
    /** Events sent to one tier in one delivery. */
    deliveryBatch: 200,
    /** First retry delay, in milliseconds, for a failed delivery; doubles per attempt, with jitter. */
    retryBaseMs: 100,
    /** Longest retry delay, in milliseconds. */
    retryMaxMs: 30_000,
    /** Outgoing deliveries a queue or fanout runs at once (Workers allows 6 open connections per invocation). */
    maxConcurrentDeliveries: 6,
    /** How long, in milliseconds, a queue waits for a fanout's acknowledgement before delivering again. */
    fanoutAckTimeoutMs: 5_000,
    /**
     * A fanout starts delivery rounds at most this often, in milliseconds: what arrives in between
     * goes in the next round, one application per tier for every queue's purges. A batch that finds
     * no round started this recently is delivered at once; otherwise it waits at most this long.
     */
    fanoutRoundGapMs: 25,
    /** Longest `?wait=` a purge status request may block, in seconds. */
    maxWaitSeconds: 60,
    /** Body size, in bytes, of one purge request: 500 URLs of the longest kind, with room. */
    maxRequestBytes: 1536 * 1024,
    /** URLs in one purge request (`files`), as Cloudflare's purge API allows. */
    maxFiles: 500,
    /** Tags, prefixes or hosts in one purge request. */
    maxSelectors: 100,
    /** Longest cache tag, in bytes of UTF-8 (Cloudflare's own limit). */
    maxTagBytes: 1024,
    /** Longest URL or prefix in a purge request, in characters. */
    maxPurgeUrlChars: 2048,
    /** Purge marks a tier keeps; past this the oldest fold into one "everything before" mark. */
    maxMarks: 20_000,
    /** Purge marks a colo's lower tier keeps in its one marks record (read on every request). */
    maxLowerMarks: 200,
    /** Audit entries per page of GET /api/purges. */
    auditPageSize: 50,
    /**
     * Takedowns (revision hides and shows, page deletions and restores) the audit log keeps; past this
     * the oldest are dropped. At the longest reason an entry is about 1.5 KiB: 75 MB at most.
     */
    maxTakedowns: 50_000,
    /** Takedown entries per page of GET /api/takedowns. */
    takedownPageSize: 50,
  },
  pool: {
    /** How long, in milliseconds, an isolate trusts the pool size it last read from a region's QueuePool. */
    membershipCacheMs: 5_000,
    /** The window, in milliseconds, over which a queue counts its events/s and delivery latency. */
    loadWindowMs: 30_000,
    /**
     * After resizing, how long, in milliseconds, the autoscaler waits (one load window) before judging the new pool.
     */
    cooldownMs: 30_000,
    /** A region's autoscaler stops waking this long, in milliseconds, after its last purge traffic or viewer. */
    idleAfterMs: 3_600_000,
    /** Health samples kept, in milliseconds of history; older ones are pruned. */
    seriesRetentionMs: 3_600_000,
    /** Autoscaler decisions kept per region (older ones are pruned). */
    decisionsKept: 1_000,
    /** Recent decisions per region that /api/tiers shows. */
    decisionsShown: 20,
  },
  wire: {
    /**
     * A dcb answer is made against a revision the client holds only if it is one of the target's
     * this-many nearest predecessors or the page's latest (src/page-store/dictionary-window.ts); any
     * other dictionary gets br. Bounds the (revision, dictionary) variants per revision to this plus one.
     */
    dcbPredecessors: 8,
    /**
     * Seconds an edge isolate remembers that a (revision, dictionary) pair has no dcb answer, so repeats never reach
     * the origin.
     */
    dcbRefusalMemorySeconds: 300,
    /** (revision, dictionary) pairs an isolate remembers as refused; past it the oldest are forgotten. */
    dcbRefusalsRemembered: 10_000,
    /**
     * Bodies shorter than this, in bytes, go out as they are: a coding's framing would eat the saving.
     * Measured on a TimeMap's first bytes: 100 B → br 70, gzip 92; 200 B → 93, 125; 965 B → 196, 235.
     * Low, because a front line codes what we send as identity anyway (Cloudflare and wrangler dev
     * compress JSON and HTML; wrangler dev under our strong ETag, which REDbot calls BAD).
     */
    minCompressBytes: 256,
    /**
     * brotli quality for bodies made per request (latest, history, timemaps, pages, problems): mid quality, cheap
     * enough to run on every miss.
     */
    dynamicBrotliQuality: 5,
    /**
     * A revision's `br` body is made once, where its answer is made, and kept in the tiers beside
     * the identity body: at quality 11 up to this size, in bytes. q11 is 10-15 % smaller than q5 but
     * runs at about 0.3 MB/s in wasm (measured: 32 KB 84 ms, 128 KB 436 ms), so bigger bodies use q9.
     */
    revisionBrotliQ11MaxBytes: 64 * 1024,
    /**
     * Up to this size, in bytes, a revision's `br` body is made at quality 9 (3-5 MB/s; 512 KB 106 ms;
     * a 36-42 MiB wasm heap, which reaches 72 MiB for inputs of about 6 MiB); bigger ones at q5.
     */
    revisionBrotliQ9MaxBytes: 1024 * 1024,
    /**
     * Largest body, in bytes, compressed per request on the way out (br or gzip made now, not stored);
     * bigger ones go identity rather than hold the isolate's CPU on every request. Every dynamic answer
     * (history, TimeMap and browse pages) is far smaller; a revision up to tiers.maxEntryBytes has its br
     * made once and stored, and a bigger one is sent identity: q5 of 16 MiB took 1.2 s of CPU a request.
     */
    maxCompressBytes: 1024 * 1024,
  },
  codec: {
    /** Default cap on any decoder's output, in bytes; callers may lower it, never raise it past this. */
    maxOutputBytes: 256 * 1024 * 1024,
    /** Largest input, in bytes, a one-shot (whole-buffer) encoder accepts; bigger inputs must stream. */
    maxOneShotInputBytes: 64 * 1024 * 1024,
    /**
     * Heap size, in bytes, past which an idle wasm instance is dropped and a
     * fresh one made on next use: wasm memory never shrinks.
     */
    recycleHeapBytes: 64 * 1024 * 1024,
    /**
     * Most a one-shot gunzip through workerd's node:zlib may produce: its own ceiling for `maxOutputLength`
     * (kMaxLength), and all of an isolate's memory.
     */
    platformGunzipMaxBytes: 128 * 1024 * 1024,
    /** Staging buffers between JS and the wasm heap, in bytes, per stream direction. */
    streamChunkBytes: 256 * 1024,
    /**
     * Bytes our LZ4 decoder (src/codec/native/lz4_fast.c, PAL_LZ4_SLACK) may read
     * past its input and write past its output capacity with whole-word copies:
     * both buffers are allocated this much larger.
     */
    lz4DecodeSlackBytes: 32,
    /**
     * Largest LZ4 frame output, in bytes, decoded in one piece in the wasm heap
     * (input and output both live there); bigger frames stream through LZ4F's
     * fixed buffers instead.
     */
    lz4OneShotFrameBytes: 32 * 1024 * 1024,
    /** brotli window (log2) allowed for HTTP-bound streams. */
    brotliMaxLgwin: 24,
    /** brotli large-window mode's window (log2); not for HTTP, browsers reject it. */
    brotliMaxLargeLgwin: 30,
    /** Biggest raw prefix dictionary, in bytes, we prepare; bigger ones cost too much heap. */
    brotliMaxDictionaryBytes: 16 * 1024 * 1024,
    /**
     * Wasm heap, in bytes, that prepared raw dictionaries kept for reuse may take
     * (src/codec/brotli/dictionary-cache.ts): about three 700 kB revisions. Kept well
     * under codec.recycleHeapBytes, beside an encoder's own tens of MiB.
     */
    preparedDictionaryCacheBytes: 16 * 1024 * 1024,
    /**
     * Largest known decoded size, in bytes, brotliDecompressKnownSize decodes in one call
     * into one heap buffer; bigger ones stream through the staging buffers, so a rare
     * huge decode does not leave the (never shrinking) heap that big.
     */
    knownSizeDecodeBytes: 8 * 1024 * 1024,
  },
  follow: {
    /**
     * `maxlag` sent with every Action API request, in seconds: a wiki whose replicas lag more turns the follower away.
     */
    maxlagSeconds: 5,
    /** Most Action API requests the follower has in flight at once (pages synced in parallel). */
    maxConcurrentRequests: 4,
    /** Attempts per Action API request: a 429, 5xx, maxlag, timeout or broken connection is tried again. */
    maxAttempts: 6,
    /** Backoff step between attempts, in milliseconds, when the wiki does not say how long (Retry-After). */
    retryBaseMs: 500,
    /** Longest Retry-After, in seconds, the follower honours; a longer one waits this long. */
    maxRetryAfterSeconds: 300,
    /** Deadline of one Action API request, in milliseconds, the whole body read: a stalled wiki is an error. */
    requestTimeoutMs: 30_000,
    /**
     * Largest Action API answer, in bytes, the follower reads. MediaWiki cuts its own answers at
     * $wgAPIMaxResultSize (8 MiB of content by default) and continues; JSON escaping can double that.
     */
    maxAnswerBytes: 32 * 1024 * 1024,
    /** Recent changes asked for per request (`rclimit`); the cursor moves after each batch is stored. */
    recentChangesPerRequest: 100,
    /**
     * How far before its cursor, in seconds, the follower asks recent changes again, so changes
     * committed out of timestamp order still come in; pages it brings up to date twice store nothing twice.
     */
    cursorOverlapSeconds: 60,
    /**
     * Seconds one Cron Trigger pass of the deployment's follower reads new recent changes for; it then
     * stores the batch in hand and stops, and the next minute's pass goes on from the cursor.
     */
    cronPassSeconds: 45,
    /**
     * Seconds a pass's lease lasts: no other pass starts meanwhile. Longer than a pass with its last
     * batch (a page's whole history on first sight); a pass that outlives it cannot move the cursor.
     */
    cronLeaseSeconds: 600,
    /**
     * Revisions one revision-deletion log entry may name that the follower mirrors (each is one archive
     * change, and showing one again one more read of the wiki); MediaWiki's own form takes at most 500.
     */
    maxRevisionDeletionIds: 500,
    /**
     * Redirects within the wiki's origin the follower follows per request; one to another origin is refused at once.
     */
    maxRedirects: 3,
    /**
     * Pages (or their revisions) the archive refused that a follower remembers, for operators to see and retry;
     * past this the oldest records go. A refused page is skipped, and the cursor moves on.
     */
    maxSkippedPages: 1_000,
    /** Refused revision ids one skipped page's record keeps (the newest). */
    maxSkippedRevisionsPerPage: 100,
    /** Characters of a title or a reason a skip record keeps: a hostile wiki's title may be any length. */
    maxSkippedTextChars: 512,
  },
  staticDict: {
    /**
     * Most (word, transform) entries a reduced static-dictionary table for the edge may hold
     * (src/codec/dict/table-format.ts); 4 bytes each. The search is per position, so the table's
     * size is CPU on every dynamic response; the committed tables are far below this.
     */
    maxTableEntries: 16_384,
  },
} as const satisfies Record<string, Record<string, number>>;

type Limits = typeof LIMITS;

/** Dotted path of one entry in {@link LIMITS}, e.g. `"http.maxUrlLength"`. */
export type LimitName = {
  [G in keyof Limits]: `${G & string}.${keyof Limits[G] & string}`;
}[keyof Limits];

/** The value of the limit at `name`. */
export function limitValue(name: LimitName): number {
  const [group, key] = name.split(".") as [keyof Limits, string];
  return (LIMITS[group] as Record<string, number>)[key]!;
}
