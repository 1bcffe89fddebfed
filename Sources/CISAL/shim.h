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
/// One ISA-L inflate stream with the gzip header it is reading. Opaque to Swift, like the
/// deflate stream: the state holds fixed arrays.
typedef struct squeeze_isal_inflater {
    struct inflate_state state;
    struct isal_gzip_header header;
} squeeze_isal_inflater;

/// A stream, or NULL when memory runs out.
static inline squeeze_isal_inflater *squeeze_isal_inflater_create(void) {
    squeeze_isal_inflater *s = (squeeze_isal_inflater *)calloc(1, sizeof(squeeze_isal_inflater));
    if (s == NULL) return NULL;
    isal_inflate_init(&s->state);
    return s;
}

static inline void squeeze_isal_inflater_destroy(squeeze_isal_inflater *s) { free(s); }

/// Starts a member: its gzip header comes next (`squeeze_isal_inflater_header`), then its
/// raw deflate data, whose CRC-32 the stream keeps; the trailer is left to the caller.
static inline void squeeze_isal_inflater_begin(squeeze_isal_inflater *s) {
    isal_inflate_reset(&s->state);
    isal_gzip_header_init(&s->header);
    s->state.crc_flag = ISAL_GZIP_NO_HDR;
}

/// Starts raw deflate data (no header, no trailer), primed with `dict` when `dict_len` > 0.
/// Returns ISAL_DECOMP_OK or ISA-L's error.
static inline int squeeze_isal_inflater_begin_raw(squeeze_isal_inflater *s, const uint8_t *dict, uint32_t dict_len) {
    isal_inflate_reset(&s->state);
    s->state.crc_flag = ISAL_GZIP_NO_HDR;
    if (dict_len == 0) return ISAL_DECOMP_OK;
    return isal_inflate_set_dict(&s->state, (uint8_t *)dict, dict_len);
}

/// Reads the member's gzip header from `in`; `*in_left` is what is left of it. Returns
/// ISAL_DECOMP_OK once the header is read, ISAL_END_INPUT when it needs more, or an error.
static inline int squeeze_isal_inflater_header(squeeze_isal_inflater *s, const uint8_t *in, uint32_t in_len, uint32_t *in_left) {
    s->state.next_in = (uint8_t *)in;
    s->state.avail_in = in_len;
    int status = isal_read_gzip_header(&s->state, &s->header);
    *in_left = s->state.avail_in;
    s->state.next_in = NULL;
    return status;
}

/// Inflates from `in` into `out`: `*in_left` and `*out_left` are what is left of each, and
/// `*done` is 1 once the final deflate block has ended and all of it is in `out` (the bytes
/// after it are given back in `*in_left`). Returns ISAL_DECOMP_OK or ISA-L's error.
static inline int squeeze_isal_inflater_step(squeeze_isal_inflater *s, const uint8_t *in, uint32_t in_len,
                                             uint8_t *out, uint32_t out_len,
                                             uint32_t *in_left, uint32_t *out_left, int *done) {
    s->state.next_in = (uint8_t *)in;
    s->state.avail_in = in_len;
    s->state.next_out = out;
    s->state.avail_out = out_len;
    int status = isal_inflate(&s->state);
    *in_left = s->state.avail_in;
    *out_left = s->state.avail_out;
    *done = s->state.block_state == ISAL_BLOCK_FINISH;
    s->state.next_in = NULL;
    s->state.next_out = NULL;
    return status;
}

/// Once the deflate data has ended: the whole bytes after it that ISA-L had already read into
/// its bit buffer (at most 8), written to `out`; returns how many. The bits of the final
/// block's last byte are dropped, as deflate's end is byte-aligned for what follows.
static inline int squeeze_isal_inflater_take_buffered(squeeze_isal_inflater *s, uint8_t out[8]) {
    int bits = s->state.read_in_length;
    if (bits <= 0) return 0;
    uint64_t buffered = s->state.read_in >> (bits % 8);
    int count = bits / 8;
    if (count > 8) count = 8;
    for (int i = 0; i < count; i++) out[i] = (uint8_t)(buffered >> (8 * i));
    s->state.read_in = 0;
    s->state.read_in_length = 0;
    return count;
}

/// Whether the stream stands between two deflate blocks with no bit of input held: where a
/// run of input that ended after a sync flush (an empty stored block) leaves it.
/// ISA-L may have moved on to the next block's header (ISAL_BLOCK_HDR) without a bit of it.
static inline int squeeze_isal_inflater_between_blocks(const squeeze_isal_inflater *s) {
    return (s->state.block_state == ISAL_BLOCK_NEW_HDR || s->state.block_state == ISAL_BLOCK_HDR)
        && s->state.read_in_length == 0 && s->state.tmp_in_size == 0 && s->state.bfinal == 0;
}

/// The CRC-32 of what the stream has produced since it began.
static inline uint32_t squeeze_isal_inflater_crc(const squeeze_isal_inflater *s) { return s->state.crc; }
#endif
