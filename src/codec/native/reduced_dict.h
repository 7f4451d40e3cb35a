/* Palimpsest's reduced static dictionary for the brotli encoder: the exports
   the TypeScript wrapper (src/codec/brotli/reduced-dictionary.ts) calls.

   Table format (little-endian), the contract with the trainer:
     "PSD1"          4 bytes, magic
     count           u32
     count entries of 4 bytes each:
       word_length   u8   4..24
       word_index    u16  < 2^NDBITS[word_length] (index within that length's block)
       transform_id  u8   0..120 (RFC 7932 Appendix B)
   Any order; duplicates allowed. Entries whose transformed string is shorter
   than 4 bytes are accepted and never searched.

   Trace record (PAL_TRACE_RECORD_BYTES = 16, little-endian), one per
   reduced-dictionary reference the encoder emitted, in input order:
     0  u32 position      input offset where the copy starts
     4  u16 word_index
     6  u8  word_length
     7  u8  transform_id
     8  u16 match_length  input bytes covered (the transformed word's length)
     10 u16 reserved, 0
     12 i32 score_gain    BackwardReferenceScore of the reference minus the best
                          score brotli had at that position without us (LZ77,
                          its own static-dictionary search, a compound
                          dictionary), or minus its acceptance threshold
                          (BROTLI_SCORE_BASE + 100) when it had nothing. */
#ifndef PAL_REDUCED_DICT_H_
#define PAL_REDUCED_DICT_H_

#include <stddef.h>
#include <stdint.h>
#include <brotli/encode.h>

#define PAL_TRACE_RECORD_BYTES 16

typedef struct BrotliReducedDictionary BrotliReducedDictionary;

/* Builds the search structure (bloom filter, 4-byte-prefix hash, radix tries)
   from a table. NULL if the table is malformed (bad magic, count not matching
   the length, an entry out of range) or memory runs out. */
BrotliReducedDictionary* BrotliReducedDictionaryPrepare(const uint8_t* table,
    size_t len);
void BrotliReducedDictionaryDestroy(BrotliReducedDictionary* dict);
/* Bytes of heap the prepared structure holds. */
size_t BrotliReducedDictionaryMemory(const BrotliReducedDictionary* dict);

/* Attaches `dict` to an encoder that has not compressed anything yet; the
   encoder keeps the pointer, so `dict` must outlive it. Searched only at
   qualities 5-9. BROTLI_FALSE if the encoder already started, `dict` is NULL
   or memory runs out. */
BROTLI_BOOL BrotliEncoderAttachReducedDictionary(BrotliEncoderState* state,
    const BrotliReducedDictionary* dict);
/* Trace mode: records up to `capacity` records into `buffer` (caller-owned,
   capacity * PAL_TRACE_RECORD_BYTES bytes, must outlive the encoder's use).
   Needs a dictionary attached first. */
BROTLI_BOOL BrotliEncoderSetReducedDictionaryTrace(BrotliEncoderState* state,
    uint8_t* buffer, size_t capacity);
/* Events seen so far; more than capacity means the extra ones were dropped. */
size_t BrotliEncoderReducedDictionaryTraceCount(BrotliEncoderState* state);

/* Writes the bytes the reference (word_length, word_index, transform_id)
   decodes to into `out` (at least 64 bytes); returns their number, or -1 if
   the reference does not exist. */
int BrotliGetDictionaryWord(uint32_t word_length, uint32_t word_index,
    uint32_t transform_id, uint8_t* out);

#endif  /* PAL_REDUCED_DICT_H_ */
