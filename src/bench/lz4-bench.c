/*
 * Native LZ4 baseline for `palimpsest bench codecs`: the same lz4libs sources
 * the wasm module is built from, compiled for the host, driven through the
 * same C entry points the TypeScript wrappers call (LZ4_compress_fast,
 * LZ4_compress_HC, LZ4F_compressFrame with the shim's preferences,
 * LZ4_decompress_safe, LZ4F_decompress), with the same pass/median timing
 * policy as src/bench/harness/timing.ts. What it leaves out is exactly the JS side:
 * heap copies in and out and the per-call mallocs, which is the overhead the
 * comparison is meant to expose.
 *
 *   lz4-bench DATA SIZES MODE WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS
 *
 * DATA is the items concatenated; SIZES lists each item's length, one per
 * line; MODE is fast, hc9 or frame. Prints one JSON object with the median
 * compress and decompress seconds per pass. One mode per run, so the bench
 * can time each native mode right next to its wasm row.
 */
#define LZ4F_STATIC_LINKING_ONLY
#define LZ4_HC_STATIC_LINKING_ONLY
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lz4.h"
#include "lz4hc.h"
#include "lz4frame.h"

typedef struct {
  size_t n;
  const char **src;
  size_t *len;
  char **packed;     /* compressed output per item */
  size_t *packedLen;
  size_t *packedCap;
  char **plain;      /* decompression target per item */
} Items;

typedef struct {
  int warmup, minPasses, maxPasses;
  double minSeconds;
} Policy;

enum { MODE_FAST, MODE_HC9, MODE_FRAME };
static const char *MODE_NAMES[] = {"fast", "hc9", "frame"};

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what) {
  fprintf(stderr, "lz4-bench: %s\n", what);
  exit(1);
}

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

static size_t compress_pass(int mode, Items *it) {
  size_t total = 0;
  for (size_t i = 0; i < it->n; i++) {
    size_t n;
    if (mode == MODE_FRAME) {
      LZ4F_preferences_t prefs;
      frame_prefs(&prefs, it->len[i]);
      n = LZ4F_compressFrame(it->packed[i], it->packedCap[i], it->src[i], it->len[i], &prefs);
      if (LZ4F_isError(n)) die("LZ4F_compressFrame failed");
    } else {
      int r = mode == MODE_FAST
                  ? LZ4_compress_fast(it->src[i], it->packed[i], (int)it->len[i], (int)it->packedCap[i], 1)
                  : LZ4_compress_HC(it->src[i], it->packed[i], (int)it->len[i], (int)it->packedCap[i], 9);
      if (r <= 0) die("LZ4 compression failed");
      n = (size_t)r;
    }
    it->packedLen[i] = n;
    total += n;
  }
  return total;
}

static void decompress_pass(int mode, Items *it) {
  for (size_t i = 0; i < it->n; i++) {
    if (mode == MODE_FRAME) {
      /* One context per item, as Lz4FrameDecoder makes one per call. */
      LZ4F_dctx *ctx = NULL;
      if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) die("no LZ4F context");
      size_t dst = it->len[i], src = it->packedLen[i];
      size_t hint = LZ4F_decompress(ctx, it->plain[i], &dst, it->packed[i], &src, NULL);
      LZ4F_freeDecompressionContext(ctx);
      if (hint != 0 || dst != it->len[i]) die("LZ4F_decompress did not finish the frame");
    } else {
      int r = LZ4_decompress_safe(it->packed[i], it->plain[i], (int)it->packedLen[i], (int)it->len[i]);
      if (r != (int)it->len[i]) die("LZ4_decompress_safe failed");
    }
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median seconds per pass; mirrors measure() in timing.ts. */
static double measure(int mode, int decompress, Items *it, const Policy *p) {
  double *times = malloc(sizeof(double) * (size_t)p->maxPasses);
  if (!times) die("out of memory");
  for (int w = 0; w < p->warmup; w++) decompress ? decompress_pass(mode, it) : (void)compress_pass(mode, it);
  int passes = 0;
  double spent = 0;
  while (passes < p->maxPasses && (passes < p->minPasses || spent < p->minSeconds)) {
    double t0 = now();
    if (decompress) decompress_pass(mode, it);
    else compress_pass(mode, it);
    double dt = now() - t0;
    times[passes++] = dt;
    spent += dt;
  }
  qsort(times, (size_t)passes, sizeof(double), cmp_double);
  double median = passes % 2 ? times[passes / 2] : (times[passes / 2 - 1] + times[passes / 2]) / 2;
  free(times);
  return median;
}

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open input");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read input");
  fclose(f);
  *size = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc != 8) die("usage: lz4-bench DATA SIZES MODE WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS");
  size_t dataLen;
  char *data = read_file(argv[1], &dataLen);
  int mode = -1;
  for (int m = MODE_FAST; m <= MODE_FRAME; m++)
    if (strcmp(argv[3], MODE_NAMES[m]) == 0) mode = m;
  if (mode < 0) die("MODE must be fast, hc9 or frame");
  Policy p = {atoi(argv[4]), atoi(argv[5]), atoi(argv[6]), atof(argv[7])};
  if (p.minPasses < 1 || p.maxPasses < p.minPasses) die("bad pass counts");

  Items it = {0};
  size_t cap = 16;
  it.len = malloc(sizeof(size_t) * cap);
  FILE *sizes = fopen(argv[2], "r");
  if (!sizes) die("cannot open sizes");
  unsigned long long v;
  while (fscanf(sizes, "%llu", &v) == 1) {
    if (it.n == cap) it.len = realloc(it.len, sizeof(size_t) * (cap *= 2));
    it.len[it.n++] = (size_t)v;
  }
  fclose(sizes);
  it.src = malloc(sizeof(char *) * it.n);
  it.packed = malloc(sizeof(char *) * it.n);
  it.packedLen = malloc(sizeof(size_t) * it.n);
  it.packedCap = malloc(sizeof(size_t) * it.n);
  it.plain = malloc(sizeof(char *) * it.n);
  size_t offset = 0, total = 0;
  for (size_t i = 0; i < it.n; i++) {
    if (offset + it.len[i] > dataLen) die("sizes exceed data");
    it.src[i] = data + offset;
    offset += it.len[i];
    total += it.len[i];
    it.plain[i] = malloc(it.len[i] + 1);
    it.packed[i] = NULL;
  }

  for (size_t i = 0; i < it.n; i++) {
    it.packedCap[i] = bound(mode, it.len[i]);
    it.packed[i] = malloc(it.packedCap[i]);
    if (!it.packed[i]) die("out of memory");
  }
  double c = measure(mode, 0, &it, &p);
  size_t packed = compress_pass(mode, &it);
  double d = measure(mode, 1, &it, &p);
  for (size_t i = 0; i < it.n; i++)
    if (memcmp(it.plain[i], it.src[i], it.len[i]) != 0) die("round trip mismatch");
  printf("{\"mode\":\"%s\",\"bytes\":%zu,\"packed\":%zu,\"compress_seconds\":%.9f,\"decompress_seconds\":%.9f}\n",
         MODE_NAMES[mode], total, packed, c, d);
  return 0;
}
