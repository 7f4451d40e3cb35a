/* Palimpsest's reduced static dictionary search for the brotli encoder.

   brotli's mid-quality hashers try its built-in dictionary only where LZ77
   found nothing, through a hash of about 5,500 words with cut-off
   transforms. Here, per encoder, a table of chosen (word, transform) pairs is
   searched wherever the best reference so far could still be beaten:

     k=1 bloom filter on the next 4 bytes      (one bit test; most positions stop here)
     -> open-addressed hash of those 4 bytes   (to the root of one radix trie)
     -> radix trie over the transformed strings sharing those 4 bytes
        (prefix + transformed word + suffix), walked along the input: every
        node that ends a string is a candidate, the deepest the longest.

   A candidate is scored exactly as brotli scores its own dictionary hits
   (BackwardReferenceScore of the bytes covered and the dictionary distance)
   and replaces brotli's choice only if it scores strictly higher, so the
   encoder's lazy matching and cost model stay in charge. References are coded
   as upstream codes them: distance = dictionary_distance + 1 + word_index +
   (transform_id << NDBITS[length]), copy-length code = the word's length. The
   output is therefore standard brotli.

   Everything here is reached through params->pal_reduced, which is NULL
   unless BrotliEncoderAttachReducedDictionary was called: without it the
   patched encoder runs upstream's code only and writes the same bytes. */
#include "reduced_dict.h"

#include <stdlib.h>
#include <string.h>

#include "common/dictionary.h"
#include "common/transform.h"
#include "enc/hash.h"
#include "enc/memory.h"
#include "enc/state.h"
#include "pal_reduced_hook.h"

#define PAL_MIN_QUALITY 5
#define PAL_MAX_QUALITY 9
#define PAL_KEY_BYTES 4
#define PAL_MAX_STRING 64
#define PAL_NUM_TRANSFORMS 121

typedef struct {
  uint32_t code;        /* word_index + (transform_id << NDBITS[length]) */
  uint16_t word_index;
  uint8_t word_length;
  uint8_t transform_id;
} PalEntry;

/* Children of a node are contiguous, so a node needs no sibling link. */
typedef struct {
  uint32_t label;       /* offset in pool of the edge's bytes */
  uint32_t child;       /* index of the first child; 0 = none */
  uint32_t entry;       /* 1 + index in entries; 0 = no string ends here */
  uint8_t label_len;
  uint8_t first;        /* label[0], to pick a child without touching pool */
  uint16_t num_children;
} PalNode;

struct BrotliReducedDictionary {
  uint32_t max_len;     /* longest searchable string */
  uint8_t* bloom;
  uint32_t hash_shift;
  uint32_t hash_mask;
  uint32_t* hash_keys;
  uint32_t* hash_roots; /* node index; 0 = empty slot */
  PalNode* nodes;
  PalEntry* entries;    /* one per distinct searchable string */
  uint8_t* pool;        /* every distinct searchable string, back to back */
  size_t memory;
};

typedef struct {
  size_t position;      /* SIZE_MAX = empty */
  size_t distance;
  int32_t gain;
  uint32_t entry;
} PalPending;

struct PalReducedSession {
  PalReducedGate gate;  /* first: pal_reduced_hook.h reads it inline */
  const BrotliReducedDictionary* dict;
  uint8_t* trace;
  size_t trace_capacity;
  size_t trace_count;
  /* Our choices for the last few positions, so a command emitted after lazy
     matching moved on by up to 4 bytes can be told apart from brotli's own. */
  PalPending pending[8];
};

static uint32_t Load32(const uint8_t* p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
      ((uint32_t)p[3] << 24);
}

/* Unrelated to PalReducedBloomBit's multiplier: the bloom filter's false
   positives must not all land on the same hash slots. */
static uint32_t HashSlot(uint32_t key, uint32_t shift) {
  return (key * 0x9E3779B1u) >> shift;
}

static uint32_t Log2Ceil(size_t n) {
  uint32_t bits = 0;
  while (((size_t)1 << bits) < n) ++bits;
  return bits;
}

int BrotliGetDictionaryWord(uint32_t word_length, uint32_t word_index,
    uint32_t transform_id, uint8_t* out) {
  const BrotliDictionary* d = BrotliGetDictionary();
  uint32_t bits;
  if (word_length < 4 || word_length > 24) return -1;
  bits = d->size_bits_by_length[word_length];
  if (bits == 0 || word_index >= (1u << bits)) return -1;
  if (transform_id >= PAL_NUM_TRANSFORMS) return -1;
  return BrotliTransformDictionaryWord(out,
      &d->data[d->offsets_by_length[word_length] + word_length * word_index],
      (int)word_length, BrotliGetTransforms(), (int)transform_id);
}

/* ------------------------------------------------------------------ prepare */

typedef struct {
  const uint8_t* pool;
  const uint32_t* offset;  /* per string */
  const uint8_t* length;   /* per string */
  PalNode* nodes;
  uint32_t num_nodes;
} PalBuilder;

/* qsort has no context argument; prepare runs to completion on one thread. */
static PalBuilder* g_sort;
static const PalEntry* g_sort_entries;

static int CompareStrings(const void* a, const void* b) {
  uint32_t x = *(const uint32_t*)a, y = *(const uint32_t*)b;
  uint32_t lx = g_sort->length[x], ly = g_sort->length[y];
  int c = memcmp(g_sort->pool + g_sort->offset[x], g_sort->pool + g_sort->offset[y],
      lx < ly ? lx : ly);
  if (c != 0) return c;
  if (lx != ly) return lx < ly ? -1 : 1;
  /* Same bytes: the smaller distance code first, it is the one kept. */
  if (g_sort_entries[x].code != g_sort_entries[y].code) {
    return g_sort_entries[x].code < g_sort_entries[y].code ? -1 : 1;
  }
  return x < y ? -1 : (x > y);
}

/* Fills node `at` for the sorted, distinct strings order[lo..hi), which share
   their first `depth` bytes. */
static void BuildNode(PalBuilder* b, const uint32_t* order, uint32_t lo,
    uint32_t hi, uint32_t depth, uint32_t at) {
  const uint8_t* first = b->pool + b->offset[order[lo]];
  const uint8_t* last = b->pool + b->offset[order[hi - 1]];
  uint32_t limit = b->length[order[lo]];
  uint32_t common = depth;
  uint32_t i, count, child;
  PalNode* node = &b->nodes[at];
  if (b->length[order[hi - 1]] < limit) limit = b->length[order[hi - 1]];
  /* Sorted: the range's common prefix is that of its first and last. */
  while (common < limit && first[common] == last[common]) ++common;
  node->label = b->offset[order[lo]] + depth;
  node->label_len = (uint8_t)(common - depth);
  node->first = common > depth ? first[depth] : 0;
  node->entry = 0;
  node->child = 0;
  node->num_children = 0;
  if (b->length[order[lo]] == common) {
    node->entry = order[lo] + 1;
    ++lo;
  }
  if (lo == hi) return;
  /* Every remaining string is longer than `common` and they differ at
     `common`: one child per distinct byte there. */
  count = 0;
  for (i = lo; i < hi;) {
    uint8_t c = b->pool[b->offset[order[i]] + common];
    while (i < hi && b->pool[b->offset[order[i]] + common] == c) ++i;
    ++count;
  }
  child = b->num_nodes;
  b->num_nodes += count;
  node->child = child;
  node->num_children = (uint16_t)count;
  for (i = lo; i < hi; ++child) {
    uint32_t j = i;
    uint8_t c = b->pool[b->offset[order[i]] + common];
    while (j < hi && b->pool[b->offset[order[j]] + common] == c) ++j;
    BuildNode(b, order, i, j, common, child);
    i = j;
  }
}

static void* Track(BrotliReducedDictionary* d, size_t bytes) {
  void* p = malloc(bytes ? bytes : 1);
  if (p) d->memory += bytes;
  return p;
}

void BrotliReducedDictionaryDestroy(BrotliReducedDictionary* d) {
  if (!d) return;
  free(d->bloom);
  free(d->hash_keys);
  free(d->hash_roots);
  free(d->nodes);
  free(d->entries);
  free(d->pool);
  free(d);
}

size_t BrotliReducedDictionaryMemory(const BrotliReducedDictionary* d) {
  return d ? d->memory : 0;
}

BrotliReducedDictionary* BrotliReducedDictionaryPrepare(const uint8_t* table,
    size_t len) {
  const BrotliDictionary* words = BrotliGetDictionary();
  BrotliReducedDictionary* d = NULL;
  uint32_t count, n = 0, i, unique = 0, groups = 0;
  size_t pool_size = 0;
  uint8_t buf[PAL_MAX_STRING];
  PalEntry* entries = NULL;
  uint32_t* offset = NULL;
  uint8_t* length = NULL;
  uint32_t* order = NULL;
  uint8_t* pool = NULL;
  PalBuilder b;

  if (!table || len < 8 || memcmp(table, "PSD1", 4) != 0) return NULL;
  count = Load32(table + 4);
  if ((len - 8) / 4 != count || (len - 8) % 4 != 0) return NULL;
  for (i = 0; i < count; ++i) {
    const uint8_t* e = table + 8 + 4 * (size_t)i;
    uint32_t wl = e[0], wi = e[1] | ((uint32_t)e[2] << 8), t = e[3];
    if (wl < 4 || wl > 24 || wi >= (1u << words->size_bits_by_length[wl]) ||
        t >= PAL_NUM_TRANSFORMS) {
      return NULL;
    }
  }

  d = (BrotliReducedDictionary*)calloc(1, sizeof(*d));
  if (!d) return NULL;
  d->memory = sizeof(*d);

  /* Pass 1: the searchable strings' total size, to size the pool exactly. */
  for (i = 0; i < count; ++i) {
    const uint8_t* e = table + 8 + 4 * (size_t)i;
    int l = BrotliGetDictionaryWord(e[0], e[1] | ((uint32_t)e[2] << 8), e[3], buf);
    if (l >= PAL_KEY_BYTES) { pool_size += (size_t)l; ++n; }
  }
  entries = (PalEntry*)malloc(sizeof(PalEntry) * (n ? n : 1));
  offset = (uint32_t*)malloc(sizeof(uint32_t) * (n ? n : 1));
  length = (uint8_t*)malloc(n ? n : 1);
  order = (uint32_t*)malloc(sizeof(uint32_t) * (n ? n : 1));
  pool = (uint8_t*)malloc(pool_size ? pool_size : 1);
  if (!entries || !offset || !length || !order || !pool) goto fail;

  /* Pass 2: write them. */
  pool_size = 0;
  n = 0;
  for (i = 0; i < count; ++i) {
    const uint8_t* e = table + 8 + 4 * (size_t)i;
    uint32_t wl = e[0], wi = e[1] | ((uint32_t)e[2] << 8), t = e[3];
    int l = BrotliGetDictionaryWord(wl, wi, t, buf);
    if (l < PAL_KEY_BYTES) continue;
    memcpy(pool + pool_size, buf, (size_t)l);
    offset[n] = (uint32_t)pool_size;
    length[n] = (uint8_t)l;
    entries[n].code = wi + (t << words->size_bits_by_length[wl]);
    entries[n].word_index = (uint16_t)wi;
    entries[n].word_length = (uint8_t)wl;
    entries[n].transform_id = (uint8_t)t;
    order[n] = n;
    pool_size += (size_t)l;
    ++n;
  }
  d->pool = pool;
  d->memory += pool_size;
  d->entries = entries;
  d->memory += sizeof(PalEntry) * n;
  pool = NULL;
  entries = NULL;

  b.pool = d->pool;
  b.offset = offset;
  b.length = length;
  g_sort = &b;
  g_sort_entries = d->entries;
  qsort(order, n, sizeof(uint32_t), CompareStrings);

  /* Keep the first of each run of equal strings (smallest distance code). */
  for (i = 0; i < n; ++i) {
    uint32_t s = order[i];
    if (unique > 0) {
      uint32_t p = order[unique - 1];
      if (length[p] == length[s] &&
          memcmp(d->pool + offset[p], d->pool + offset[s], length[s]) == 0) {
        continue;
      }
      if (memcmp(d->pool + offset[p], d->pool + offset[s], PAL_KEY_BYTES) != 0) {
        ++groups;
      }
    } else {
      ++groups;
    }
    if (length[s] > d->max_len) d->max_len = length[s];
    order[unique++] = s;
  }

  /* Every node but a root ends a string or has two or more children, so
     2 * unique + groups bounds the count; node 0 is the null node. */
  d->nodes = (PalNode*)Track(d, sizeof(PalNode) * ((size_t)2 * unique + groups + 1));
  d->hash_shift = 32 - Log2Ceil((size_t)groups * 2 + 2);
  d->hash_mask = (1u << (32 - d->hash_shift)) - 1;
  d->hash_keys = (uint32_t*)Track(d, sizeof(uint32_t) * ((size_t)d->hash_mask + 1));
  d->hash_roots = (uint32_t*)Track(d, sizeof(uint32_t) * ((size_t)d->hash_mask + 1));
  /* Fixed size (pal_reduced_hook.h says why): ~1 % false positives at the
     committed tables' ~130 keys, more for the big tables only the trainer
     uses, where speed matters less. */
  d->bloom = (uint8_t*)Track(d, ((size_t)1 << PAL_BLOOM_BITS) / 8);
  if (!d->nodes || !d->hash_keys || !d->hash_roots || !d->bloom) goto fail;
  memset(d->hash_roots, 0, sizeof(uint32_t) * ((size_t)d->hash_mask + 1));
  memset(d->bloom, 0, ((size_t)1 << PAL_BLOOM_BITS) / 8);
  memset(&d->nodes[0], 0, sizeof(PalNode));

  b.nodes = d->nodes;
  b.num_nodes = 1;
  for (i = 0; i < unique;) {
    uint32_t j = i + 1;
    uint32_t key = Load32(d->pool + offset[order[i]]);
    uint32_t root = b.num_nodes++;
    uint32_t slot, bit;
    while (j < unique && Load32(d->pool + offset[order[j]]) == key) ++j;
    BuildNode(&b, order, i, j, PAL_KEY_BYTES, root);
    slot = HashSlot(key, d->hash_shift);
    while (d->hash_roots[slot] != 0) slot = (slot + 1) & d->hash_mask;
    d->hash_keys[slot] = key;
    d->hash_roots[slot] = root;
    bit = PalReducedBloomBit(key);
    d->bloom[bit >> 3] |= (uint8_t)(1u << (bit & 7));
    i = j;
  }

  free(offset);
  free(length);
  free(order);
  return d;

fail:
  free(entries);
  free(offset);
  free(length);
  free(order);
  free(pool);
  BrotliReducedDictionaryDestroy(d);
  return NULL;
}

/* ------------------------------------------------------------------- encode */

BROTLI_BOOL BrotliEncoderAttachReducedDictionary(BrotliEncoderState* s,
    const BrotliReducedDictionary* dict) {
  MemoryManager* m = &s->memory_manager_;
  struct PalReducedSession* session;
  if (!dict || s->is_initialized_ || s->params.pal_reduced) return BROTLI_FALSE;
  /* The encoder's own allocator: its OOM clean-up then frees this too. */
  session = BROTLI_ALLOC(m, struct PalReducedSession, 1);
  if (BROTLI_IS_OOM(m) || !session) return BROTLI_FALSE;
  memset(session, 0, sizeof(*session));
  session->dict = dict;
  session->gate.bloom = dict->bloom;
  {
    size_t i;
    for (i = 0; i < 8; ++i) session->pending[i].position = (size_t)-1;
  }
  s->params.pal_reduced = session;
  return BROTLI_TRUE;
}

BROTLI_BOOL BrotliEncoderSetReducedDictionaryTrace(BrotliEncoderState* s,
    uint8_t* buffer, size_t capacity) {
  struct PalReducedSession* session = s->params.pal_reduced;
  if (!session) return BROTLI_FALSE;
  session->trace = buffer;
  session->trace_capacity = buffer ? capacity : 0;
  session->trace_count = 0;
  session->gate.tracing = buffer != NULL;
  return BROTLI_TRUE;
}

size_t BrotliEncoderReducedDictionaryTraceCount(BrotliEncoderState* s) {
  return s->params.pal_reduced ? s->params.pal_reduced->trace_count : 0;
}

void PalReducedSessionFree(MemoryManager* m, struct PalReducedSession* s) {
  if (s) BROTLI_FREE(m, s);
}

void PalReducedSearch(const BrotliEncoderParams* params,
    const uint8_t* ringbuffer, size_t ringbuffer_mask, size_t position,
    size_t max_length, size_t dictionary_distance, HasherSearchResult* sr) {
  struct PalReducedSession* session = params->pal_reduced;
  const BrotliReducedDictionary* d = session->dict;
  const uint8_t* data = &ringbuffer[position & ringbuffer_mask];
  const score_t before = sr->score;
  score_t best_score = before;
  uint32_t best_entry = 0, best_len = 0;
  size_t best_distance = 0;
  uint32_t key, slot, node_ix, depth;
  if (params->quality < PAL_MIN_QUALITY || params->quality > PAL_MAX_QUALITY) {
    return;
  }
  if (max_length < PAL_KEY_BYTES || d->max_len == 0) return;
  /* The closest a dictionary reference can be is dictionary_distance + 1:
     if even the longest string at that distance cannot beat what brotli
     has, skip the lookup altogether. */
  if (BackwardReferenceScore(max_length < d->max_len ? max_length : d->max_len,
          dictionary_distance + 1) <= before) {
    return;
  }
  /* PalReducedMayMatch passed the bloom filter. */
  key = Load32(data);
  slot = HashSlot(key, d->hash_shift);
  for (;;) {
    node_ix = d->hash_roots[slot];
    if (node_ix == 0) return;
    if (d->hash_keys[slot] == key) break;
    slot = (slot + 1) & d->hash_mask;
  }
  depth = PAL_KEY_BYTES;
  for (;;) {
    const PalNode* node = &d->nodes[node_ix];
    uint32_t i;
    if (depth + node->label_len > max_length) break;
    if (node->label_len &&
        memcmp(data + depth, d->pool + node->label, node->label_len) != 0) {
      break;
    }
    depth += node->label_len;
    if (node->entry) {
      const PalEntry* e = &d->entries[node->entry - 1];
      size_t distance = dictionary_distance + 1 + e->code;
      if (distance <= params->dist.max_distance) {
        score_t score = BackwardReferenceScore(depth, distance);
        if (score > best_score) {
          best_score = score;
          best_entry = node->entry;
          best_len = depth;
          best_distance = distance;
        }
      }
    }
    if (depth >= max_length || node->num_children == 0) break;
    for (i = 0; i < node->num_children; ++i) {
      if (d->nodes[node->child + i].first == data[depth]) break;
    }
    if (i == node->num_children) break;
    node_ix = node->child + i;
  }
  if (best_entry == 0) return;
  {
    const PalEntry* e = &d->entries[best_entry - 1];
    PalPending* p = &session->pending[position & 7];
    sr->len = best_len;
    sr->len_code_delta = (int)e->word_length - (int)best_len;
    sr->distance = best_distance;
    sr->score = best_score;
    p->position = position;
    p->distance = best_distance;
    p->gain = (int32_t)((int64_t)best_score - (int64_t)before);
    p->entry = best_entry;
  }
}

void PalReducedCommit(const BrotliEncoderParams* params, size_t position,
    const HasherSearchResult* sr) {
  struct PalReducedSession* session = params->pal_reduced;
  const PalPending* p = &session->pending[position & 7];
  if (p->position != position || p->distance != sr->distance) return;
  if (session->trace_count < session->trace_capacity) {
    const PalEntry* e = &session->dict->entries[p->entry - 1];
    uint8_t* r = session->trace + PAL_TRACE_RECORD_BYTES * session->trace_count;
    uint32_t pos = (uint32_t)position;
    uint32_t gain = (uint32_t)p->gain;
    r[0] = (uint8_t)pos; r[1] = (uint8_t)(pos >> 8);
    r[2] = (uint8_t)(pos >> 16); r[3] = (uint8_t)(pos >> 24);
    r[4] = (uint8_t)e->word_index; r[5] = (uint8_t)(e->word_index >> 8);
    r[6] = e->word_length;
    r[7] = e->transform_id;
    r[8] = (uint8_t)sr->len; r[9] = (uint8_t)(sr->len >> 8);
    r[10] = 0; r[11] = 0;
    r[12] = (uint8_t)gain; r[13] = (uint8_t)(gain >> 8);
    r[14] = (uint8_t)(gain >> 16); r[15] = (uint8_t)(gain >> 24);
  }
  ++session->trace_count;
}
