#ifndef SQUEEZE_CISAL_SHIM_H
#define SQUEEZE_CISAL_SHIM_H
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <stdint.h>
#include <stdlib.h>

/// One ISA-L deflate stream and its level buffer in one allocation. Opaque to Swift: the
/// stream holds fixed arrays that the importer would turn into enormous tuples.
typedef struct squeeze_isal_stream {
    struct isal_zstream z;
    uint32_t level;
    uint32_t level_buf_size;
    uint8_t level_buf[];
} squeeze_isal_stream;

/// The level buffer ISA-L suggests for `level` (its _DEFAULT size; level 0 needs none).
static inline uint32_t squeeze_isal_level_buffer_size(int level) {
    switch (level) {
    case 1: return ISAL_DEF_LVL1_DEFAULT;
    case 2: return ISAL_DEF_LVL2_DEFAULT;
    case 3: return ISAL_DEF_LVL3_DEFAULT;
    default: return ISAL_DEF_LVL0_DEFAULT;
    }
}

/// A stream for `level` (0...3), or NULL for another level or when memory runs out.
static inline squeeze_isal_stream *squeeze_isal_create(int level) {
    if (level < 0 || level > 3) return NULL;
    uint32_t size = squeeze_isal_level_buffer_size(level);
    squeeze_isal_stream *s = (squeeze_isal_stream *)calloc(1, sizeof(squeeze_isal_stream) + size);
    if (s == NULL) return NULL;
    s->level = (uint32_t)level;
    s->level_buf_size = size;
    return s;
}

static inline void squeeze_isal_destroy(squeeze_isal_stream *s) { free(s); }

/// Starts a raw deflate stream, primed with `dict` when `dict_len` > 0, that ends either with
/// the final block (`last`) or byte-aligned with a sync flush (an empty stored block).
/// Returns COMP_OK or ISA-L's error.
static inline int squeeze_isal_begin(squeeze_isal_stream *s, const uint8_t *dict, uint32_t dict_len, int last) {
    isal_deflate_init(&s->z);
    s->z.level = s->level;
    s->z.level_buf = s->level_buf;
    s->z.level_buf_size = s->level_buf_size;
    s->z.gzip_flag = IGZIP_DEFLATE;
    s->z.end_of_stream = last ? 1 : 0;
    s->z.flush = last ? NO_FLUSH : SYNC_FLUSH;
    if (dict_len == 0) return COMP_OK;
    return isal_deflate_set_dict(&s->z, (uint8_t *)dict, dict_len);
}

/// Compresses from `in` into `out`. On return `*in_left` and `*out_left` are what is left
/// of each, and `*done` is 1 once the whole stream (to its final block or sync flush) has
/// been written. Returns COMP_OK or ISA-L's error.
static inline int squeeze_isal_step(squeeze_isal_stream *s, const uint8_t *in, uint32_t in_len,
                                    uint8_t *out, uint32_t out_len,
                                    uint32_t *in_left, uint32_t *out_left, int *done) {
    s->z.next_in = (uint8_t *)in;
    s->z.avail_in = in_len;
    s->z.next_out = out;
    s->z.avail_out = out_len;
    int status = isal_deflate(&s->z);
    *in_left = s->z.avail_in;
    *out_left = s->z.avail_out;
    if (s->z.end_of_stream) {
        *done = s->z.internal_state.state == ZSTATE_END;
    } else {
        // ISA-L returns when the input is used up or the output is full; with room left over,
        // the flush has been written too.
        *done = s->z.avail_in == 0 && s->z.avail_out > 0;
    }
    s->z.next_in = NULL;
    s->z.next_out = NULL;
    return status;
}
#endif
