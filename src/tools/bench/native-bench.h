/*
 * What the native codec harnesses (lz4-bench.c, brotli-bench.c) share, so
 * both take their figures exactly as src/tools/bench/harness/timing.ts does and
 * cannot drift apart: the same warmup, the same "at least MIN_PASSES and
 * MIN_SECONDS, at most MAX_PASSES" loop over whole passes, alternating
 * passes when several are timed together (measureAll), and the median and
 * best pass of each. Inputs arrive as one file of concatenated items plus
 * one of their sizes (native-build.ts writes them), so no per-item file I/O
 * sits near the timed loop.
 *
 * Built with -DBENCH_TEST_CORRUPT_OUTPUT, verify_outputs() first flips a byte
 * of the first non-empty output: the tests use that build to prove the
 * round-trip check can fail. Header-only (static functions): each harness is
 * one translation unit plus the codec's own sources.
 */
#ifndef PALIMPSEST_NATIVE_BENCH_H
#define PALIMPSEST_NATIVE_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME before including native-bench.h"
#endif

typedef struct {
  int warmup, minPasses, maxPasses;
  double minSeconds;
} Policy;

/* A list of byte strings cut out of one buffer. */
typedef struct {
  size_t n, total;
  const unsigned char **ptr;
  size_t *len;
} Blobs;

typedef struct {
  double median, best;
  int passes;
} Stat;

typedef void (*PassFn)(void *ctx);

static void die(const char *what) {
  fprintf(stderr, "%s: %s\n", BENCH_NAME, what);
  exit(1);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) die("out of memory");
  return p;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned char *read_whole(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) die("cannot open input");
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  if (n < 0) die("cannot size input");
  unsigned char *buf = xmalloc((size_t)n);
  if (fread(buf, 1, (size_t)n, f) != (size_t)n) die("cannot read input");
  fclose(f);
  *size = (size_t)n;
  return buf;
}

/* DATA holds the items back to back; SIZES their lengths, one per line. */
static Blobs read_blobs(const char *data_path, const char *sizes_path) {
  Blobs b = {0};
  size_t dataLen, cap = 16;
  const unsigned char *data = read_whole(data_path, &dataLen);
  b.len = xmalloc(sizeof(size_t) * cap);
  FILE *sizes = fopen(sizes_path, "r");
  if (!sizes) die("cannot open sizes");
  unsigned long long v;
  while (fscanf(sizes, "%llu", &v) == 1) {
    if (b.n == cap) {
      b.len = realloc(b.len, sizeof(size_t) * (cap *= 2));
      if (!b.len) die("out of memory");
    }
    b.len[b.n++] = (size_t)v;
  }
  fclose(sizes);
  b.ptr = xmalloc(sizeof(char *) * b.n);
  for (size_t i = 0; i < b.n; i++) {
    if (b.total + b.len[i] > dataLen) die("sizes exceed data");
    b.ptr[i] = data + b.total;
    b.total += b.len[i];
  }
  if (b.total != dataLen) die("sizes do not add up to data");
  return b;
}

/* WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS, as TimingPolicy. */
static Policy parse_policy(char **argv) {
  Policy p = {atoi(argv[0]), atoi(argv[1]), atoi(argv[2]), atof(argv[3])};
  if (p.warmup < 0 || p.minPasses < 1 || p.maxPasses < p.minPasses) die("bad pass counts");
  return p;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* measureAll() in timing.ts: rounds of every pass in turn until the slowest has had its time. */
static void measure_all(int k, PassFn *pass, void **ctx, const Policy *p, Stat *out) {
  double *times = xmalloc(sizeof(double) * (size_t)p->maxPasses * (size_t)k);
  double spent[8] = {0};
  if (k > 8) die("too many passes to alternate");
  for (int w = 0; w < p->warmup; w++)
    for (int j = 0; j < k; j++) pass[j](ctx[j]);
  int n = 0;
  for (;;) {
    double slowest = 0;
    for (int j = 0; j < k; j++) slowest = spent[j] > slowest ? spent[j] : slowest;
    if (n >= p->maxPasses || (n >= p->minPasses && slowest >= p->minSeconds)) break;
    for (int j = 0; j < k; j++) {
      double t0 = now();
      pass[j](ctx[j]);
      double dt = now() - t0;
      times[(size_t)j * (size_t)p->maxPasses + (size_t)n] = dt;
      spent[j] += dt;
    }
    n++;
  }
  for (int j = 0; j < k; j++) {
    double *t = times + (size_t)j * (size_t)p->maxPasses;
    qsort(t, (size_t)n, sizeof(double), cmp_double);
    out[j].median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
    out[j].best = t[0];
    out[j].passes = n;
  }
  free(times);
}

/* Exits non-zero unless every output equals its item: a baseline that decodes wrongly is no baseline. */
static void verify_outputs(const char *what, const Blobs *items, unsigned char **outputs) {
#ifdef BENCH_TEST_CORRUPT_OUTPUT
  for (size_t i = 0; i < items->n; i++)
    if (items->len[i] > 0) {
      outputs[i][0] ^= 1;
      break;
    }
#endif
  for (size_t i = 0; i < items->n; i++) {
    if (memcmp(outputs[i], items->ptr[i], items->len[i]) != 0) {
      fprintf(stderr, "%s: %s: item %zu did not round-trip\n", BENCH_NAME, what, i);
      exit(2);
    }
  }
}

/*
 * FNV-1a (64-bit) over the outputs in order, so a caller can check that the
 * native build wrote the very bytes the wasm did (same code, same settings)
 * without shipping the outputs back; fnv1a64() in native-build.ts matches it.
 */
static unsigned long long fnv1a64(size_t n, unsigned char *const *data, const size_t *len) {
  unsigned long long h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < len[i]; j++) h = (h ^ data[i][j]) * 0x100000001b3ULL;
  return h;
}

/* "NAME":{"median":S,"best":S,"passes":N}, seconds per pass. */
static void print_stat(const char *name, const Stat *s) {
  printf("\"%s\":{\"median\":%.9f,\"best\":%.9f,\"passes\":%d}", name, s->median, s->best, s->passes);
}

#endif
