/* The three calls the reduced-dictionary patch (patches/reduced-dictionary.patch)
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

/* After brotli's own search (LZ77, its static dictionary, a compound
   dictionary) at `position`: replaces *sr with the best reduced-dictionary
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
