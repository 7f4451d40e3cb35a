/*
 * Native brotli baseline for `palimpsest bench codecs`: the brotli sources
 * the wasm module is built from (the pinned sdist with the same
 * reduced-dictionary patch, which without a reduced dictionary takes
 * upstream's path), compiled for the host by native-brotli.ts, called the
 * way the TypeScript wrappers call them, timed as harness/timing.ts times
 * (native-bench.h). Left out, by design, is the JS side: copies into and out
 * of the wasm heap and the per-call heap leases.
 *
 *   brotli-bench DATA SIZES QUALITY LGWIN WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS
 *                [DICTS DICT_SIZES PREPARE]
 *
 * Plain calls: BrotliEncoderCompress (generic mode, the input's size as the
 * hint, as brotliCompress passes it) and one-shot BrotliDecoderDecompress
 * into a buffer of the known size. With DICTS (one raw dictionary per item)
 * it also times dictionary calls, alternating passes with the plain calls on
 * the same items so their ratio is the dictionary's own cost: a fresh
 * encoder with the same parameters, BrotliEncoderAttachPreparedDictionary,
 * BrotliEncoderCompressStream(FINISH) to the end (exactly what
 * BrotliEncoderCompress does inside, plus the attach); a fresh decoder with
 * BrotliDecoderAttachDictionary, BrotliDecoderDecompressStream to the end.
 * PREPARE "once" prepares each dictionary before timing, as a per-dictionary
 * cache would; "per-call" prepares (at quality 11, as BrotliDictionary does)
 * and frees it inside every compress call, as passing raw bytes does.
 *
 * Prints one JSON object: per path, packed bytes (and their FNV-1a, to check
 * against the wasm's output) and the median and best
 * seconds per pass each way. Every decoded item is checked against its input
 * first (exit 2 if one differs).
 */
#define BENCH_NAME "brotli-bench"
#include <brotli/decode.h>
#include <brotli/encode.h>
#include "native-bench.h"

typedef struct {
  int quality, lgwin;
  const Blobs *items;
  unsigned char **packed;
  size_t *packedLen, *packedCap;
  unsigned char **plain;
  /* Dictionary path only. */
  const Blobs *dicts;
  BrotliEncoderPreparedDictionary **prepared; /* NULL entries: prepare per call */
} Path;

static void plain_compress(void *ctx) {
  Path *p = ctx;
  for (size_t i = 0; i < p->items->n; i++) {
    size_t out = p->packedCap[i];
    if (!BrotliEncoderCompress(p->quality, p->lgwin, BROTLI_MODE_GENERIC, p->items->len[i], p->items->ptr[i], &out, p->packed[i]))
      die("BrotliEncoderCompress failed");
    p->packedLen[i] = out;
  }
}

static void plain_decompress(void *ctx) {
  Path *p = ctx;
  for (size_t i = 0; i < p->items->n; i++) {
    size_t out = p->items->len[i];
    if (BrotliDecoderDecompress(p->packedLen[i], p->packed[i], &out, p->plain[i]) != BROTLI_DECODER_RESULT_SUCCESS || out != p->items->len[i])
      die("BrotliDecoderDecompress failed");
  }
}

static BrotliEncoderPreparedDictionary *prepare(const Blobs *dicts, size_t i) {
  BrotliEncoderPreparedDictionary *d =
      BrotliEncoderPrepareDictionary(BROTLI_SHARED_DICTIONARY_RAW, dicts->len[i], dicts->ptr[i], BROTLI_MAX_QUALITY, NULL, NULL, NULL);
  if (!d) die("BrotliEncoderPrepareDictionary failed");
  return d;
}

static void dict_compress(void *ctx) {
  Path *p = ctx;
  for (size_t i = 0; i < p->items->n; i++) {
    BrotliEncoderPreparedDictionary *dict = p->prepared[i] ? p->prepared[i] : prepare(p->dicts, i);
    BrotliEncoderState *s = BrotliEncoderCreateInstance(NULL, NULL, NULL);
    if (!s) die("BrotliEncoderCreateInstance failed");
    size_t len = p->items->len[i];
    BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY, (uint32_t)p->quality);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN, (uint32_t)p->lgwin);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_MODE, BROTLI_MODE_GENERIC);
    BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT, (uint32_t)len);
    if (!BrotliEncoderAttachPreparedDictionary(s, dict)) die("BrotliEncoderAttachPreparedDictionary failed");
    size_t availIn = len, availOut = p->packedCap[i];
    const uint8_t *in = p->items->ptr[i];
    uint8_t *out = p->packed[i];
    if (!BrotliEncoderCompressStream(s, BROTLI_OPERATION_FINISH, &availIn, &in, &availOut, &out, NULL) || !BrotliEncoderIsFinished(s))
      die("BrotliEncoderCompressStream did not finish (output bound too small?)");
    p->packedLen[i] = p->packedCap[i] - availOut;
    BrotliEncoderDestroyInstance(s);
    if (!p->prepared[i]) BrotliEncoderDestroyPreparedDictionary(dict);
  }
}

static void dict_decompress(void *ctx) {
  Path *p = ctx;
  for (size_t i = 0; i < p->items->n; i++) {
    BrotliDecoderState *s = BrotliDecoderCreateInstance(NULL, NULL, NULL);
    if (!s) die("BrotliDecoderCreateInstance failed");
    if (!BrotliDecoderAttachDictionary(s, BROTLI_SHARED_DICTIONARY_RAW, p->dicts->len[i], p->dicts->ptr[i]))
      die("BrotliDecoderAttachDictionary failed");
    size_t availIn = p->packedLen[i], availOut = p->items->len[i];
    const uint8_t *in = p->packed[i];
    uint8_t *out = p->plain[i];
    if (BrotliDecoderDecompressStream(s, &availIn, &in, &availOut, &out, NULL) != BROTLI_DECODER_RESULT_SUCCESS || availOut != 0)
      die("BrotliDecoderDecompressStream failed");
    BrotliDecoderDestroyInstance(s);
  }
}

static Path new_path(int quality, int lgwin, const Blobs *items) {
  Path p = {quality, lgwin, items};
  size_t n = items->n;
  p.packed = xmalloc(sizeof(char *) * n);
  p.packedLen = xmalloc(sizeof(size_t) * n);
  p.packedCap = xmalloc(sizeof(size_t) * n);
  p.plain = xmalloc(sizeof(char *) * n);
  for (size_t i = 0; i < n; i++) {
    p.packedCap[i] = BrotliEncoderMaxCompressedSize(items->len[i]);
    if (p.packedCap[i] == 0) die("item too large for BrotliEncoderMaxCompressedSize");
    p.packed[i] = xmalloc(p.packedCap[i]);
    p.plain[i] = xmalloc(items->len[i]);
  }
  return p;
}

static size_t packed_total(const Path *p) {
  size_t total = 0;
  for (size_t i = 0; i < p->items->n; i++) total += p->packedLen[i];
  return total;
}

static void print_path(const char *name, const Path *p, const Stat *c, const Stat *d) {
  printf("\"%s\":{\"packed\":%zu,\"packed_fnv1a64\":\"%016llx\",", name, packed_total(p), fnv1a64(p->items->n, p->packed, p->packedLen));
  print_stat("compress_seconds", c);
  printf(",");
  print_stat("decompress_seconds", d);
  printf("}");
}

int main(int argc, char **argv) {
  if (argc != 9 && argc != 12)
    die("usage: brotli-bench DATA SIZES QUALITY LGWIN WARMUP MIN_PASSES MAX_PASSES MIN_SECONDS [DICTS DICT_SIZES once|per-call]");
  Blobs items = read_blobs(argv[1], argv[2]);
  int quality = atoi(argv[3]), lgwin = atoi(argv[4]);
  if (quality < 0 || quality > 11 || lgwin < 10 || lgwin > 24) die("QUALITY must be 0..11 and LGWIN 10..24");
  Policy pol = parse_policy(argv + 5);
  Path plain = new_path(quality, lgwin, &items);
  int withDict = argc == 12;
  Blobs dicts = {0};
  Path dict = {0};
  if (withDict) {
    dicts = read_blobs(argv[9], argv[10]);
    if (dicts.n != items.n) die("DICT_SIZES must list one dictionary per item");
    int once = strcmp(argv[11], "once") == 0;
    if (!once && strcmp(argv[11], "per-call") != 0) die("PREPARE must be once or per-call");
    dict = new_path(quality, lgwin, &items);
    dict.dicts = &dicts;
    dict.prepared = xmalloc(sizeof(void *) * items.n);
    for (size_t i = 0; i < items.n; i++) {
      if (dicts.len[i] == 0) die("a dictionary is empty");
      dict.prepared[i] = once ? prepare(&dicts, i) : NULL;
    }
  }

  int k = withDict ? 2 : 1;
  void *ctx[2] = {&plain, &dict};
  PassFn compress[2] = {plain_compress, dict_compress}, decompress[2] = {plain_decompress, dict_decompress};
  Stat c[2], d[2];
  measure_all(k, compress, ctx, &pol, c);
  measure_all(k, decompress, ctx, &pol, d);
  verify_outputs("plain", &items, plain.plain);
  if (withDict) verify_outputs("dictionary", &items, dict.plain);

  printf("{\"quality\":%d,\"lgwin\":%d,\"items\":%zu,\"bytes\":%zu,", quality, lgwin, items.n, items.total);
  if (withDict) printf("\"prepare\":\"%s\",", argv[11]);
  print_path("plain", &plain, &c[0], &d[0]);
  if (withDict) {
    printf(",");
    print_path("dict", &dict, &c[1], &d[1]);
  }
  printf("}\n");
  return 0;
}
