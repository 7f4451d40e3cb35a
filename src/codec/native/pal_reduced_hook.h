/* The calls the reduced-dictionary patch (patches/reduced-dictionary.patch)
   adds to upstream brotli's encoder, and nothing else: upstream files include
   this header, our reduced_dict.c implements it. Kept apart from
   reduced_dict.h so the patched upstream files see no more of our code than
   these calls. */
#ifndef PAL_REDUCED_HOOK_H_
#define PAL_REDUCED_HOOK_H_

#include <stddef.h>
#include <stdint.h>

struct PalReducedSession;
struct BrotliEncoderParams;
struct HasherSearchResult;
struct MemoryManager;

/* The first member of every PalReducedSession: what the patched encoder
   reads inline. Most positions fail the bloom test, and testing it here
   rather than in a call keeps the encoder's hot loop free of a call (and of
   the register spills around it) at those positions. */
typedef struct PalReducedGate {
  const uint8_t* bloom;  /* k=1 bloom filter over the table's 4-byte keys */
  uint32_t tracing;      /* nonzero: PalReducedCommit has something to record */
} PalReducedGate;

/* The bloom filter has 2^15 bits, indexed by the top 15 bits of the next 4
   bytes times brotli's kHashMul32: the very bucket key that the hashers of
   qualities 5-9 at windows up to 64 KiB (H40-H42) compute at the same
   position. The gate is evaluated just before that hasher's search, so the
   compiler loads and multiplies once for both, and the gate costs a byte
   load and a bit test. 2^15 bits keep false positives under 1 % for the
   committed tables (about 130 keys each). */
#define PAL_BLOOM_BITS 15
static inline uint32_t PalReducedBloomBit(uint32_t key) {
  return (key * 0x1E35A7BDu) >> (32 - PAL_BLOOM_BITS);
}

/* The filter to test, read once per block: NULL when there is no session. */
static inline const uint8_t* PalReducedBloom(
    const struct PalReducedSession* session) {
  return session ? ((const PalReducedGate*)(const void*)session)->bloom : NULL;
}

/* Whether PalReducedSearch could find anything at `data`: false for certain
   when the next 4 bytes are not a key of the table. The caller guarantees 4
   readable bytes (brotli's loop keeps HashTypeLength() bytes ahead). */
static inline int PalReducedMayMatch(const uint8_t* bloom,
    const uint8_t* data) {
  uint32_t key = (uint32_t)data[0] | ((uint32_t)data[1] << 8) |
      ((uint32_t)data[2] << 16) | ((uint32_t)data[3] << 24);
  uint32_t bit = PalReducedBloomBit(key);
  return (bloom[bit >> 3] >> (bit & 7)) & 1;
}

/* Whether PalReducedCommit needs calling: only trace mode records. */
static inline int PalReducedTracing(const struct PalReducedSession* session) {
  return ((const PalReducedGate*)(const void*)session)->tracing != 0;
}

/* After brotli's own search (LZ77, its static dictionary, a compound
   dictionary) at `position`, once PalReducedMayMatch said yes: replaces *sr with the best reduced-dictionary
   reference if that scores strictly higher. Quality 5-9 only. */
void PalReducedSearch(const struct BrotliEncoderParams* params,
    const uint8_t* ringbuffer, size_t ringbuffer_mask, size_t position,
    size_t max_length, size_t dictionary_distance,
    struct HasherSearchResult* sr);

/* When a command is emitted for the reference in *sr at `position`: records
   a trace event if it is one of ours and tracing is on. */
void PalReducedCommit(const struct BrotliEncoderParams* params,
    size_t position, const struct HasherSearchResult* sr);

/* Frees an encoder's session (NULL is fine) with the encoder's allocator. */
void PalReducedSessionFree(struct MemoryManager* m,
    struct PalReducedSession* session);

#endif  /* PAL_REDUCED_HOOK_H_ */
