/*
 * Thin entry points over lz4frame.h so the TypeScript side never has to lay
 * out LZ4F_preferences_t or LZ4F_frameInfo_t by hand: struct layouts are an
 * ABI detail of the C library and may change between releases.
 */
#define LZ4F_STATIC_LINKING_ONLY
#include <stdlib.h>
#include <string.h>
#include "lz4frame.h"

static void fill_prefs(LZ4F_preferences_t *prefs, int level, int block_size_id,
                       int content_checksum, unsigned long long content_size) {
  memset(prefs, 0, sizeof(*prefs));
  prefs->frameInfo.blockSizeID = (LZ4F_blockSizeID_t)block_size_id;
  prefs->frameInfo.blockMode = LZ4F_blockLinked;
  prefs->frameInfo.contentChecksumFlag =
      content_checksum ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
  prefs->frameInfo.contentSize = content_size;
  prefs->compressionLevel = level;
}

size_t pal_lz4f_compress_bound(size_t src_size, int level, int block_size_id) {
  LZ4F_preferences_t prefs;
  fill_prefs(&prefs, level, block_size_id, 1, src_size);
  return LZ4F_compressFrameBound(src_size, &prefs);
}

/* Returns the frame size, or an LZ4F error code (test with LZ4F_isError). */
size_t pal_lz4f_compress(void *dst, size_t dst_cap, const void *src,
                         size_t src_size, int level, int block_size_id) {
  LZ4F_preferences_t prefs;
  fill_prefs(&prefs, level, block_size_id, 1, src_size);
  return LZ4F_compressFrame(dst, dst_cap, src, src_size, &prefs);
}

LZ4F_dctx *pal_lz4f_dctx_create(void) {
  LZ4F_dctx *ctx = NULL;
  if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) return NULL;
  return ctx;
}

/*
 * One decompression step. io points at four size_t slots:
 * [0] dst capacity in / bytes written out, [1] src size in / bytes consumed out.
 * Returns LZ4F's hint (0 when the frame is complete) or an error code.
 */
size_t pal_lz4f_decompress(LZ4F_dctx *ctx, void *dst, const void *src, size_t *io) {
  size_t dst_size = io[0];
  size_t src_size = io[1];
  size_t r = LZ4F_decompress(ctx, dst, &dst_size, src, &src_size, NULL);
  io[0] = dst_size;
  io[1] = src_size;
  return r;
}
