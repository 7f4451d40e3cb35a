/*
 * Our own LZ4 block decoder, written from the LZ4 block format description
 * (lz4_Block_format.md), in variants that differ only in how they copy, plus
 * a one-shot LZ4 frame decoder (lz4_Frame_format.md) built on it. Upstream's
 * LZ4_decompress_safe stays in the module as the reference: the TypeScript
 * side runs it whenever this decoder reports an error, so an error here only
 * ever costs time, never changes an answer.
 *
 * Padded buffers. Every entry point requires PAL_LZ4_SLACK readable bytes
 * after src + src_len and PAL_LZ4_SLACK writable bytes after the end of the
 * output capacity. Copies are "wild": whole 8- or 16-byte words, so a copy
 * may read up to 15 bytes past the literals it needs and write up to 31
 * bytes past the sequence it decodes; the bounds checks below keep all of
 * that within the slack. Nothing is ever read before src or before the
 * history start, and nothing outside [history start, end + slack) is written.
 *
 * End-of-block rules (the same as the reference's, relative to the output
 * capacity): a match may not start in the last 12 bytes of the capacity and
 * must end at least 5 bytes before it; a sequence whose literals come within
 * 8 bytes of the input's end, or within 12 of the capacity, is the last one
 * and must consume the input exactly. Every compressor obeys these (they are
 * how it ends a block), so real output is never refused. Offset 0 is refused;
 * no compressor writes one.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <wasm_simd128.h>
#include "xxhash.h"

#define PAL_LZ4_SLACK 32

enum {
  PAL_LZ4_ERR_INPUT = -1,    /* truncated, or runs past the end of the input */
  PAL_LZ4_ERR_OUTPUT = -2,   /* literals or a match run past the capacity */
  PAL_LZ4_ERR_OFFSET = -3,   /* offset 0, or reaching before the history start */
  PAL_LZ4_ERR_VARIANT = -4,  /* no such variant */
};

/* The copy strategies, in the order the TypeScript side names them. */
enum {
  PAL_LZ4_WILD8 = 0,         /* 8-byte words; offsets below 8 byte by byte */
  PAL_LZ4_WILD16 = 1,        /* 16-byte vectors; offsets below 16 byte by byte */
  PAL_LZ4_WILD16_SWIZZLE = 2,/* 16-byte vectors; offsets below 16 by a swizzle pattern */
  PAL_LZ4_VARIANTS = 3,
};

int pal_lz4_slack(void) { return PAL_LZ4_SLACK; }
int pal_lz4_variants(void) { return PAL_LZ4_VARIANTS; }

static inline void copy8(uint8_t *d, const uint8_t *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  memcpy(d, &w, 8);
}

static inline void copy16(uint8_t *d, const uint8_t *s) { wasm_v128_store(d, wasm_v128_load(s)); }

/*
 * For an offset d below 16, PATTERN[d] picks byte i % d of the 16 bytes at the
 * match, so one swizzle turns the match's first d bytes into 16 bytes of the
 * repetition. STEP[d] is the largest multiple of d that fits in 16: storing the
 * same vector again that far on keeps the phase.
 */
static const uint8_t PATTERN[16][16] = {
    {0},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
    {0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1},
    {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0},
    {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0},
    {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6, 0, 1},
    {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1, 2, 3, 4, 5},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2, 3, 4},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 1, 2, 3},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 1, 2},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 0, 1},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0},
};
static const uint8_t STEP[16] = {0, 16, 16, 15, 16, 15, 12, 14, 16, 9, 10, 11, 12, 13, 14, 15};

/* Literals: src and dst never overlap, and lit has been bounds-checked. */
static inline __attribute__((always_inline)) void copy_literals(uint8_t *op, const uint8_t *ip, size_t lit, const int v) {
  if (v == PAL_LZ4_WILD8) {
    copy8(op, ip);
    copy8(op + 8, ip + 8);
    for (size_t i = 16; i < lit; i += 8) copy8(op + i, ip + i);
  } else {
    copy16(op, ip);
    for (size_t i = 16; i < lit; i += 16) copy16(op + i, ip + i);
  }
}

/*
 * A match of ml >= 4 bytes at distance off >= 1. Sequential word copies are
 * exact whenever off is at least the word size: each load reads only bytes
 * already stored. Shorter offsets repeat a period shorter than a word.
 */
static inline __attribute__((always_inline)) void copy_match(uint8_t *op, const uint8_t *match, size_t off, size_t ml, const int v) {
  if (v == PAL_LZ4_WILD8) {
    if (off >= 8) {
      copy8(op, match);
      copy8(op + 8, match + 8);
      copy8(op + 16, match + 16);
      for (size_t i = 24; i < ml; i += 8) copy8(op + i, match + i);
      return;
    }
  } else if (off >= 16) {
    copy16(op, match);
    copy16(op + 16, match + 16);
    for (size_t i = 32; i < ml; i += 32) {
      copy16(op + i, match + i);
      copy16(op + i + 16, match + i + 16);
    }
    return;
  } else if (v == PAL_LZ4_WILD16_SWIZZLE) {
    v128_t rep = wasm_i8x16_swizzle(wasm_v128_load(match), wasm_v128_load(PATTERN[off]));
    size_t step = STEP[off];
    uint8_t *const end = op + ml;
    do {
      wasm_v128_store(op, rep);
      op += step;
    } while (op < end);
    return;
  }
  for (size_t i = 0; i < ml; i++) op[i] = match[i];
}

/*
 * Decodes one block from src[0, src_len) to base + start, at most cap bytes.
 * Matches may reach back to base: the bytes in [base, base + start) are the
 * history (the earlier blocks of a linked frame). Returns the decoded size or
 * a negative PAL_LZ4_ERR_*.
 */
static inline __attribute__((always_inline)) int decode_block(const uint8_t *src, size_t src_len, uint8_t *base, size_t start, size_t cap, const int v) {
  const uint8_t *ip = src;
  const uint8_t *const iend = src + src_len;
  uint8_t *const ostart = base + start;
  uint8_t *op = ostart;
  uint8_t *const oend = ostart + cap;

  /* The spec's empty block is a single zero token; with no room, that is all a block may be. */
  if (src_len == 0) return PAL_LZ4_ERR_INPUT;
  if (cap == 0) return (src_len == 1 && src[0] == 0) ? 0 : PAL_LZ4_ERR_OUTPUT;

  /*
   * Short literals (< 15) with the input and output this far from their ends
   * need no end-of-block check at all: 14 literals still leave more than 8
   * input bytes, and 14 literals plus an 18-byte match more than 12 + 5
   * output bytes. Most sequences take this path.
   */
  const uint8_t *const ifast = src_len > 32 ? iend - 32 : src;
  uint8_t *const ofast = cap > 64 ? oend - 64 : ostart;
  const size_t word = v == PAL_LZ4_WILD8 ? 8 : 16;
  for (;;) {
    /*
     * The common sequence, decided whole before anything is copied: short
     * literals, then a match of 4..18 bytes (no length bytes) at least a
     * word back, copied as 24 bytes with no loop. With ip < ifast and
     * op < ofast every end-of-block rule holds without a check (the match
     * ends before oend - 32); the offset check is the general path's. A
     * tight loop of these, as upstream's shortcut, made the decoder 10-20 %
     * faster on real pages (their sequences average 8 bytes in js, 13 in css).
     */
    for (;;) {
      const unsigned t = *ip;
      const size_t l = t >> 4;
      if (!((l < 15) & (ip < ifast) & (op < ofast))) break;
      uint16_t o16;
      memcpy(&o16, ip + 1 + l, 2);
      const size_t o = o16;
      if (!(((t & 15) != 15) & (o >= word) & (o <= (size_t)(op + l - base)))) break;
      copy_literals(op, ip + 1, 16, v);
      op += l;
      ip += 3 + l;
      const uint8_t *const match = op - o;
      if (v == PAL_LZ4_WILD8) {
        copy8(op, match);
        copy8(op + 8, match + 8);
      } else {
        copy16(op, match);
      }
      copy8(op + 16, match + 16);
      op += (t & 15) + 4;
    }
    /* Loop invariant: ip < iend (the checks below leave at least a token). */
    const unsigned token = *ip++;
    size_t lit = token >> 4;
    if (__builtin_expect((lit < 15) & (ip < ifast) & (op < ofast), 1)) {
      copy_literals(op, ip, 16, v);
      ip += lit;
      op += lit;
    } else {
      if (lit == 15) {
        /* The length bytes must leave room for 15+ literals after them. */
        if ((size_t)(iend - ip) <= 15) return PAL_LZ4_ERR_INPUT;
        unsigned b;
        do {
          b = *ip++;
          lit += b;
          if ((size_t)(iend - ip) < 15) return PAL_LZ4_ERR_INPUT;
          if (lit > (size_t)(oend - op)) return PAL_LZ4_ERR_OUTPUT; /* also keeps lit from wrapping */
        } while (b == 255);
      }
      const size_t in_left = (size_t)(iend - ip);
      const size_t out_left = (size_t)(oend - op);
      if (lit + 8 > in_left || lit + 12 > out_left) {
        /* Last sequence: its literals end the input exactly and fit. */
        if (lit != in_left) return PAL_LZ4_ERR_INPUT;
        if (lit > out_left) return PAL_LZ4_ERR_OUTPUT;
        memcpy(op, ip, lit);
        op += lit;
        return (int)(op - ostart);
      }
      /* Even with no literals: the wild copy is cheaper than a branch, and the match overwrites it. */
      copy_literals(op, ip, lit, v);
      ip += lit;
      op += lit;
    }

    /* At least 8 input bytes remain: the offset, a token and 5 literals. */
    uint16_t off16;
    memcpy(&off16, ip, 2);
    const size_t off = off16;
    ip += 2;
    size_t ml = token & 15;
    if (ml == 15) {
      unsigned b;
      do {
        b = *ip++;
        ml += b;
        /* The last 5 input bytes are literals, so a length byte never reaches them. */
        if ((size_t)(iend - ip) < 4) return PAL_LZ4_ERR_INPUT;
        if (ml > (size_t)(oend - op)) return PAL_LZ4_ERR_OUTPUT;
      } while (b == 255);
      if (ml + 9 > (size_t)(oend - op)) return PAL_LZ4_ERR_OUTPUT;
    } else if (op >= ofast && ml + 9 > (size_t)(oend - op)) {
      return PAL_LZ4_ERR_OUTPUT; /* a match must end 5 bytes before the end (ml + 4 + 5) */
    }
    ml += 4;
    /* One unsigned compare refuses offset 0 and offsets before the history start. */
    if (off - 1 >= (size_t)(op - base)) return PAL_LZ4_ERR_OFFSET;
    copy_match(op, op - off, off, ml, v);
    op += ml;
  }
}

static int decode_wild8(const uint8_t *s, size_t n, uint8_t *b, size_t st, size_t cap) { return decode_block(s, n, b, st, cap, PAL_LZ4_WILD8); }
static int decode_wild16(const uint8_t *s, size_t n, uint8_t *b, size_t st, size_t cap) { return decode_block(s, n, b, st, cap, PAL_LZ4_WILD16); }
static int decode_swizzle(const uint8_t *s, size_t n, uint8_t *b, size_t st, size_t cap) { return decode_block(s, n, b, st, cap, PAL_LZ4_WILD16_SWIZZLE); }

static int decode_variant(int variant, const uint8_t *src, size_t src_len, uint8_t *base, size_t start, size_t cap) {
  switch (variant) {
    case PAL_LZ4_WILD8: return decode_wild8(src, src_len, base, start, cap);
    case PAL_LZ4_WILD16: return decode_wild16(src, src_len, base, start, cap);
    case PAL_LZ4_WILD16_SWIZZLE: return decode_swizzle(src, src_len, base, start, cap);
    default: return PAL_LZ4_ERR_VARIANT;
  }
}

/*
 * One block: src[0, src_len) decodes to dst + dst_offset, at most dst_cap
 * bytes, with dst[0, dst_offset) as history. Slack as above after src +
 * src_len and after dst + dst_offset + dst_cap. Returns the decoded size or a
 * negative error.
 */
int pal_lz4_decode_block(const uint8_t *src, int src_len, uint8_t *dst, int dst_offset, int dst_cap, int variant) {
  if (src_len < 0 || dst_offset < 0 || dst_cap < 0) return PAL_LZ4_ERR_INPUT;
  return decode_variant(variant, src, (size_t)src_len, dst, (size_t)dst_offset, (size_t)dst_cap);
}

/* ---- Frames ---------------------------------------------------------- */

enum {
  PAL_LZ4F_DONE = 0,
  PAL_LZ4F_NEED_ROOM = 1,         /* grow dst to io[2] bytes and call again */
  PAL_LZ4F_ERR_TRUNCATED = -10,
  PAL_LZ4F_ERR_HEADER = -11,      /* magic, version, reserved bits or block size id */
  PAL_LZ4F_ERR_DICT_ID = -12,     /* the frame names a dictionary, which we do not support */
  PAL_LZ4F_ERR_HEADER_CHECKSUM = -13,
  PAL_LZ4F_ERR_BLOCK_SIZE = -14,  /* a block over the declared maximum */
  PAL_LZ4F_ERR_BLOCK_CHECKSUM = -15,
  PAL_LZ4F_ERR_BLOCK = -16,       /* a block the block decoder refused */
  PAL_LZ4F_ERR_CONTENT_SIZE = -17,/* the content is not the size the header declares */
  PAL_LZ4F_ERR_CONTENT_CHECKSUM = -18,
  PAL_LZ4F_ERR_TRAILING = -19,    /* bytes after the frame */
  PAL_LZ4F_ERR_ROOM = -20,        /* dst smaller than the declared content size */
};

#define LZ4F_MAGIC 0x184D2204u

static inline uint32_t read32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

typedef struct {
  uint32_t header_bytes;
  uint32_t max_block;
  uint32_t independent, block_checksum, content_checksum, has_content_size;
  uint64_t content_size;
} frame_header;

static int parse_header(const uint8_t *src, size_t src_len, frame_header *h) {
  if (src_len < 7) return PAL_LZ4F_ERR_TRUNCATED;
  if (read32(src) != LZ4F_MAGIC) return PAL_LZ4F_ERR_HEADER;
  const unsigned flg = src[4], bd = src[5];
  if ((flg >> 6) != 1 || (flg & 0x02)) return PAL_LZ4F_ERR_HEADER;
  h->independent = (flg >> 5) & 1;
  h->block_checksum = (flg >> 4) & 1;
  h->has_content_size = (flg >> 3) & 1;
  h->content_checksum = (flg >> 2) & 1;
  h->header_bytes = 7 + (h->has_content_size ? 8 : 0) + ((flg & 1) ? 4 : 0);
  if (src_len < h->header_bytes) return PAL_LZ4F_ERR_TRUNCATED;
  const unsigned id = (bd >> 4) & 7;
  if ((bd & 0x8f) || id < 4) return PAL_LZ4F_ERR_HEADER;
  h->max_block = 1u << (8 + 2 * id);
  if (((XXH32(src + 4, h->header_bytes - 5, 0) >> 8) & 0xff) != src[h->header_bytes - 1]) return PAL_LZ4F_ERR_HEADER_CHECKSUM;
  if (flg & 1) return PAL_LZ4F_ERR_DICT_ID;
  h->content_size = h->has_content_size ? ((uint64_t)read32(src + 6) | (uint64_t)read32(src + 10) << 32) : 0;
  return 0;
}

/*
 * What the caller needs before allocating: info[0] = 1 if the content size is
 * declared, info[1] and info[2] = its low and high 32 bits, info[3] = the
 * maximum block size. Returns 0 or a negative PAL_LZ4F_ERR_*.
 */
int pal_lz4f_fast_info(const uint8_t *src, int src_len, uint32_t *info) {
  frame_header h;
  int r = parse_header(src, (size_t)src_len, &h);
  if (r < 0) return r;
  info[0] = h.has_content_size;
  info[1] = (uint32_t)h.content_size;
  info[2] = (uint32_t)(h.content_size >> 32);
  info[3] = h.max_block;
  return 0;
}

/*
 * Decodes one whole frame, src[0, src_len), into dst[0, dst_cap) (slack after
 * both, as above). Linked blocks decode in place after the blocks before them,
 * which are their history. io[0] and io[1] carry where to resume (input offset
 * of the next block header, 0 to start) and the bytes written so far.
 *
 * A frame without a declared content size may need more room than the caller
 * guessed: before a block that might not fit, it returns PAL_LZ4F_NEED_ROOM
 * with the capacity wanted in io[2]; the caller moves the output to a bigger
 * buffer and calls again with io as returned. Only one frame is decoded;
 * anything after it is an error, as is a skippable frame (the caller's
 * reference path handles both).
 */
int pal_lz4f_fast_decode(const uint8_t *src, int src_len_i, uint8_t *dst, int dst_cap_i, uint32_t *io, int variant) {
  const size_t src_len = (size_t)src_len_i, dst_cap = (size_t)dst_cap_i;
  frame_header h;
  int r = parse_header(src, src_len, &h);
  if (r < 0) return r;
  if (h.has_content_size && h.content_size > dst_cap) return PAL_LZ4F_ERR_ROOM;
  const size_t limit = h.has_content_size ? (size_t)h.content_size : dst_cap;
  size_t pos = io[0] ? io[0] : h.header_bytes;
  size_t written = io[1];
  const size_t crc_bytes = h.block_checksum ? 4 : 0;

  for (;;) {
    if (src_len - pos < 4) return PAL_LZ4F_ERR_TRUNCATED;
    const uint32_t word = read32(src + pos);
    if (word == 0) {
      pos += 4;
      break;
    }
    const size_t size = word & 0x7fffffffu;
    const int raw = (word >> 31) != 0;
    if (size > h.max_block) return PAL_LZ4F_ERR_BLOCK_SIZE;
    if (src_len - pos - 4 < size + crc_bytes) return PAL_LZ4F_ERR_TRUNCATED;
    /* At most max_block bytes come out; ask for that much room unless the content size bounds it. */
    const size_t want = raw ? size : h.max_block;
    if (!h.has_content_size && limit - written < want) {
      io[0] = (uint32_t)pos;
      io[1] = (uint32_t)written;
      io[2] = (uint32_t)(written + want);
      return PAL_LZ4F_NEED_ROOM;
    }
    const uint8_t *data = src + pos + 4;
    if (crc_bytes && XXH32(data, size, 0) != read32(data + size)) return PAL_LZ4F_ERR_BLOCK_CHECKSUM;
    const size_t room = limit - written;
    if (raw) {
      if (size > room) return PAL_LZ4F_ERR_CONTENT_SIZE;
      memcpy(dst + written, data, size);
      written += size;
    } else {
      const size_t cap = room < h.max_block ? room : h.max_block;
      const size_t start = h.independent ? 0 : written;
      const int n = decode_variant(variant, data, size, dst + written - start, start, cap);
      if (n < 0) return n == PAL_LZ4_ERR_VARIANT ? n : PAL_LZ4F_ERR_BLOCK;
      written += (size_t)n;
    }
    pos += 4 + size + crc_bytes;
  }
  if (h.has_content_size && written != h.content_size) return PAL_LZ4F_ERR_CONTENT_SIZE;
  if (h.content_checksum) {
    if (src_len - pos < 4) return PAL_LZ4F_ERR_TRUNCATED;
    if (XXH32(dst, written, 0) != read32(src + pos)) return PAL_LZ4F_ERR_CONTENT_CHECKSUM;
    pos += 4;
  }
  io[0] = (uint32_t)pos;
  io[1] = (uint32_t)written;
  return pos == src_len ? PAL_LZ4F_DONE : PAL_LZ4F_ERR_TRAILING;
}
