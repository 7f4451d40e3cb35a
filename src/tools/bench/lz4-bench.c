/*
 * Native LZ4 baseline for `palimpsest bench codecs`: the same lz4libs sources
 * the wasm module is built from, compiled for the host with the wasm build's
 * compiler (native-lz4.ts), driven through the same C entry points the
 * TypeScript wrappers call (LZ4_compress_fast, LZ4_compress_HC,
 * LZ4F_compressFrame with the shim's preferences, LZ4_decompress_safe,
 * LZ4F_decompress), timed as src/tools/bench/harness/timing.ts times
 * (native-bench.h). What it leaves out is exactly the JS side: heap copies
 * in and out and the per-call mallocs, which is the overhead the comparison
 * is meant to expose.
 *
 *   lz4-bench DATA SIZES MODE WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS
 *
 * DATA is the items concatenated; SIZES lists each item's length, one per
 * line; MODE is fast, hc9 or frame. Prints one JSON object with the median
 * and best compress and decompress seconds per pass, after checking every
 * item round-trips (exit 2 if not). One mode per run, so the bench can time
 * each native mode right next to its wasm row.
 */
#define BENCH_NAME "lz4-bench"
#define LZ4F_STATIC_LINKING_ONLY
#define LZ4_HC_STATIC_LINKING_ONLY
#include "native-bench.h"
#include "lz4.h"
#include "lz4hc.h"
#include "lz4frame.h"

enum { MODE_FAST, MODE_HC9, MODE_FRAME };
static const char *MODE_NAMES[] = {"fast", "hc9", "frame"};

typedef struct {
  int mode;
  Blobs items;
  char **packed; /* compressed output per item */
  size_t *packedLen;
  size_t *packedCap;
  unsigned char **plain; /* decompression target per item */
} Run;

static void frame_prefs(LZ4F_preferences_t *prefs, size_t size) {
  /* Same as src/codec/native/lz4_shim.c: 4 MiB linked blocks, content checksum and size. */
  memset(prefs, 0, sizeof(*prefs));
  prefs->frameInfo.blockSizeID = LZ4F_max4MB;
  prefs->frameInfo.blockMode = LZ4F_blockLinked;
  prefs->frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  prefs->frameInfo.contentSize = size;
  prefs->compressionLevel = 0;
}

static size_t bound(int mode, size_t size) {
  if (mode == MODE_FRAME) {
    LZ4F_preferences_t prefs;
    frame_prefs(&prefs, size);
    return LZ4F_compressFrameBound(size, &prefs);
  }
  return (size_t)LZ4_compressBound((int)size);
}

static void compress_pass(void *ctx) {
  Run *r = ctx;
  for (size_t i = 0; i < r->items.n; i++) {
    const char *src = (const char *)r->items.ptr[i];
    size_t len = r->items.len[i], n;
    if (r->mode == MODE_FRAME) {
      LZ4F_preferences_t prefs;
      frame_prefs(&prefs, len);
      n = LZ4F_compressFrame(r->packed[i], r->packedCap[i], src, len, &prefs);
      if (LZ4F_isError(n)) die("LZ4F_compressFrame failed");
    } else {
      int k = r->mode == MODE_FAST ? LZ4_compress_fast(src, r->packed[i], (int)len, (int)r->packedCap[i], 1)
                                   : LZ4_compress_HC(src, r->packed[i], (int)len, (int)r->packedCap[i], 9);
      if (k <= 0 && len > 0) die("LZ4 compression failed");
      n = (size_t)k;
    }
    r->packedLen[i] = n;
  }
}

static void decompress_pass(void *ctx) {
  Run *r = ctx;
  for (size_t i = 0; i < r->items.n; i++) {
    size_t len = r->items.len[i];
    if (r->mode == MODE_FRAME) {
      /* One context per item, as Lz4FrameDecoder makes one per call. */
      LZ4F_dctx *dctx = NULL;
      if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) die("no LZ4F context");
      size_t dst = len, src = r->packedLen[i];
      size_t hint = LZ4F_decompress(dctx, r->plain[i], &dst, r->packed[i], &src, NULL);
      LZ4F_freeDecompressionContext(dctx);
      if (hint != 0 || dst != len) die("LZ4F_decompress did not finish the frame");
    } else {
      int k = LZ4_decompress_safe(r->packed[i], (char *)r->plain[i], (int)r->packedLen[i], (int)len);
      if (k != (int)len) die("LZ4_decompress_safe failed");
    }
  }
}

int main(int argc, char **argv) {
  if (argc != 8) die("usage: lz4-bench DATA SIZES MODE WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS");
  Run r = {.mode = -1};
  for (int m = MODE_FAST; m <= MODE_FRAME; m++)
    if (strcmp(argv[3], MODE_NAMES[m]) == 0) r.mode = m;
  if (r.mode < 0) die("MODE must be fast, hc9 or frame");
  Policy p = parse_policy(argv + 4);
  r.items = read_blobs(argv[1], argv[2]);
  size_t n = r.items.n;
  r.packed = xmalloc(sizeof(char *) * n);
  r.packedLen = xmalloc(sizeof(size_t) * n);
  r.packedCap = xmalloc(sizeof(size_t) * n);
  r.plain = xmalloc(sizeof(char *) * n);
  for (size_t i = 0; i < n; i++) {
    r.packedCap[i] = bound(r.mode, r.items.len[i]);
    r.packed[i] = xmalloc(r.packedCap[i]);
    r.plain[i] = xmalloc(r.items.len[i]);
  }

  PassFn compress = compress_pass, decompress = decompress_pass;
  void *ctx = &r;
  Stat c, d;
  measure_all(1, &compress, &ctx, &p, &c);
  size_t packed = 0;
  for (size_t i = 0; i < n; i++) packed += r.packedLen[i];
  measure_all(1, &decompress, &ctx, &p, &d);
  verify_outputs(MODE_NAMES[r.mode], &r.items, r.plain);

  printf("{\"mode\":\"%s\",\"items\":%zu,\"bytes\":%zu,\"packed\":%zu,", MODE_NAMES[r.mode], n, r.items.total, packed);
  print_stat("compress_seconds", &c);
  printf(",");
  print_stat("decompress_seconds", &d);
  printf("}\n");
  return 0;
}
