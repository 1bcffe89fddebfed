// A deflate (RFC 1951) structure walker. libdeflate has no way to continue a stream after
// its output, which always ends with BFINAL set; to splice its blocks into one gzip member
// the engine clears that bit and appends an empty stored block. Finding the bit means
// walking every block, which is an inflate without the output: this file does exactly that,
// as fast as a table-driven decoder can.
#include "squeeze_deflate.h"

#include <string.h>

enum {
    MAX_BITS = 15,
    FAST_BITS = 10,  // primary table; longer codes (rare symbols) take the canonical path
    MAX_LITLEN = 288,
    MAX_DIST = 32,
};

typedef struct {
    const uint8_t *in;
    size_t length;
    size_t position;    // next byte to load
    uint64_t buffer;    // bits not yet consumed, LSB first
    unsigned count;     // valid bits in buffer
    int overrun;        // set when a read needed bits past the end
} bit_reader;

/// A canonical Huffman code: a fast table for codes up to FAST_BITS, and the per-length
/// counts and sorted symbols for the rest (puff's method). A fast entry is
/// (symbol << 10) | (skip << 4) | length, where skip is the code's length plus the extra bits
/// that follow its symbol: the walk never needs the extra bits' values, only their count.
/// 0 means "not a short code".
typedef struct {
    uint32_t fast[1u << FAST_BITS];
    uint16_t counts[MAX_BITS + 1];
    uint16_t symbols[MAX_LITLEN];
} huffman;

static const uint8_t length_extra[29] = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
static const uint8_t distance_extra[30] = {
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
static const uint8_t code_length_order[19] = {
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};

static inline void refill(bit_reader *r) {
    if (r->count >= 56) return;
    if (r->length - r->position >= 8) {
        // Whole-word refill: load 8 bytes and advance by the whole ones that fit. Bits of a
        // partly fitting byte land above `count`; the next load ORs the same bits there again.
        uint64_t word;
        memcpy(&word, r->in + r->position, 8);
        r->buffer |= word << r->count;
        unsigned bytes = (63 - r->count) >> 3;
        r->position += bytes;
        r->count += bytes * 8;
        return;
    }
    while (r->count <= 56 && r->position < r->length) {
        r->buffer |= (uint64_t)r->in[r->position++] << r->count;
        r->count += 8;
    }
}

static inline uint32_t peek(bit_reader *r, unsigned n) {
    return (uint32_t)(r->buffer & ((1ull << n) - 1));
}

static inline void drop(bit_reader *r, unsigned n) {
    if (n > r->count) {
        r->overrun = 1;
        r->count = 0;
        r->buffer = 0;
        return;
    }
    r->buffer >>= n;
    r->count -= n;
}

static inline uint32_t take(bit_reader *r, unsigned n) {
    if (r->count < n) refill(r);
    uint32_t value = peek(r, n);
    drop(r, n);
    return value;
}

static inline uint64_t bit_position(const bit_reader *r) {
    return (uint64_t)r->position * 8 - r->count;
}

static inline uint32_t reverse_bits(uint32_t code, unsigned length) {
    uint32_t reversed = 0;
    for (unsigned i = 0; i < length; i++) {
        reversed = (reversed << 1) | (code & 1);
        code >>= 1;
    }
    return reversed;
}

/// Extra bits after each literal/length symbol (0 for literals and end-of-block; invalid
/// symbols 286 and 287 get none, and are refused when decoded).
static unsigned litlen_extra(unsigned symbol) {
    return symbol >= 257 && symbol < 257 + 29 ? length_extra[symbol - 257] : 0;
}

static unsigned dist_extra(unsigned symbol) {
    return symbol < 30 ? distance_extra[symbol] : 0;
}

/// Builds the code for `n` symbols with `lengths`; `extra` gives each symbol's extra bits.
/// Returns -1 for an over-subscribed set; incomplete codes are allowed (deflate permits a
/// single distance code), and a symbol that falls in their gap is reported when decoded.
static int build(huffman *h, const uint8_t *lengths, unsigned n, unsigned (*extra)(unsigned)) {
    memset(h->counts, 0, sizeof h->counts);
    memset(h->fast, 0, sizeof h->fast);
    for (unsigned s = 0; s < n; s++) h->counts[lengths[s]]++;
    h->counts[0] = 0;
    int left = 1;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        left <<= 1;
        left -= h->counts[len];
        if (left < 0) return -1;
    }
    uint16_t offsets[MAX_BITS + 2];
    offsets[1] = 0;
    for (unsigned len = 1; len <= MAX_BITS; len++) offsets[len + 1] = offsets[len] + h->counts[len];
    uint32_t next_code[MAX_BITS + 1];
    uint32_t code = 0;
    next_code[0] = 0;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        code = (code + h->counts[len - 1]) << 1;
        next_code[len] = code;
    }
    for (unsigned s = 0; s < n; s++) {
        unsigned len = lengths[s];
        if (len == 0) continue;
        h->symbols[offsets[len]++] = (uint16_t)s;
        uint32_t assigned = next_code[len]++;
        if (len <= FAST_BITS) {
            uint32_t reversed = reverse_bits(assigned, len);
            uint32_t skip = len + (extra ? extra(s) : 0);
            for (uint32_t fill = reversed; fill < (1u << FAST_BITS); fill += 1u << len)
                h->fast[fill] = (s << 10) | (skip << 4) | len;
        }
    }
    return 0;
}

/// Decodes one symbol; -1 on a code outside the table or past the end of the input.
static inline int decode(bit_reader *r, const huffman *h) {
    if (r->count < MAX_BITS) refill(r);
    uint32_t entry = h->fast[peek(r, FAST_BITS)];
    if (entry != 0) {
        unsigned len = entry & 15;
        if (len > r->count) return -1;
        drop(r, len);
        return (int)(entry >> 10);
    }
    // Canonical decoding, one bit at a time (codes are sent most significant bit first).
    int code = 0, first = 0, index = 0;
    for (unsigned len = 1; len <= MAX_BITS; len++) {
        if (r->count == 0) return -1;
        code |= (int)(r->buffer & 1);
        drop(r, 1);
        int count = h->counts[len];
        if (code - count < first) return h->symbols[index + (code - first)];
        index += count;
        first += count;
        first <<= 1;
        code <<= 1;
    }
    return -1;
}

static int read_dynamic_tables(bit_reader *r, huffman *litlen, huffman *dist) {
    unsigned nlen = take(r, 5) + 257;
    unsigned ndist = take(r, 5) + 1;
    unsigned ncode = take(r, 4) + 4;
    if (nlen > 286 || ndist > 30) return -1;
    uint8_t lengths[MAX_LITLEN + MAX_DIST];
    memset(lengths, 0, 19);
    for (unsigned i = 0; i < ncode; i++) lengths[code_length_order[i]] = (uint8_t)take(r, 3);
    if (r->overrun) return -1;
    huffman code_lengths;
    if (build(&code_lengths, lengths, 19, NULL) != 0) return -1;
    unsigned i = 0;
    while (i < nlen + ndist) {
        int symbol = decode(r, &code_lengths);
        if (symbol < 0) return -1;
        if (symbol < 16) {
            lengths[i++] = (uint8_t)symbol;
            continue;
        }
        uint8_t value = 0;
        unsigned repeat;
        if (symbol == 16) {
            if (i == 0) return -1;
            value = lengths[i - 1];
            repeat = 3 + take(r, 2);
        } else if (symbol == 17) {
            repeat = 3 + take(r, 3);
        } else {
            repeat = 11 + take(r, 7);
        }
        if (r->overrun || i + repeat > nlen + ndist) return -1;
        while (repeat--) lengths[i++] = value;
    }
    if (lengths[256] == 0) return -1;  // no end-of-block code: the block could never end
    if (build(litlen, lengths, nlen, litlen_extra) != 0) return -1;
    if (build(dist, lengths + nlen, ndist, dist_extra) != 0) return -1;
    return 0;
}

static void fixed_tables(huffman *litlen, huffman *dist) {
    uint8_t lengths[MAX_LITLEN];
    unsigned s = 0;
    for (; s < 144; s++) lengths[s] = 8;
    for (; s < 256; s++) lengths[s] = 9;
    for (; s < 280; s++) lengths[s] = 7;
    for (; s < 288; s++) lengths[s] = 8;
    build(litlen, lengths, 288, litlen_extra);
    for (s = 0; s < 30; s++) lengths[s] = 5;
    build(dist, lengths, 30, dist_extra);
}

/// Skips the symbols of one Huffman block up to and including its end-of-block code.
static int skip_symbols(bit_reader *r, const huffman *litlen, const huffman *dist) {
    for (;;) {
        // Fast path: with 48 bits at hand a whole literal, or a length and its distance with
        // their extra bits, are in the buffer, and short codes drop code and extras at once.
        if (r->count < 48) refill(r);
        if (r->count >= 48) {
            uint32_t entry = litlen->fast[peek(r, FAST_BITS)];
            if (entry != 0) {
                unsigned symbol = entry >> 10;
                if (symbol < 256) {
                    drop(r, entry & 15);
                    continue;
                }
                if (symbol == 256) {
                    drop(r, entry & 15);
                    return 0;
                }
                if (symbol >= 257 + 29) return -1;
                uint32_t distance = dist->fast[peek(r, FAST_BITS + ((entry >> 4) & 63)) >> ((entry >> 4) & 63)];
                if (distance != 0) {
                    if ((distance >> 10) >= 30) return -1;
                    drop(r, ((entry >> 4) & 63) + ((distance >> 4) & 63));
                    continue;
                }
            }
        }
        // Near the end of the input, or a long code: one step at a time.
        int symbol = decode(r, litlen);
        if (symbol < 0) return -1;
        if (symbol < 256) continue;
        if (symbol == 256) return r->overrun ? -1 : 0;
        symbol -= 257;
        if (symbol >= 29) return -1;
        if (length_extra[symbol]) take(r, length_extra[symbol]);
        int d = decode(r, dist);
        if (d < 0 || d >= 30) return -1;
        if (distance_extra[d]) take(r, distance_extra[d]);
        if (r->overrun) return -1;
    }
}

int squeeze_deflate_find_end(const uint8_t *in, size_t length, squeeze_deflate_ends *ends) {
    if (in == NULL || ends == NULL) return -1;
    bit_reader r = {in, length, 0, 0, 0, 0};
    huffman litlen, dist;
    for (;;) {
        refill(&r);
        uint64_t header = bit_position(&r);
        unsigned final = take(&r, 1);
        unsigned type = take(&r, 2);
        if (r.overrun) return -1;
        if (type == 0) {
            drop(&r, r.count & 7);  // to the byte boundary
            uint32_t len = take(&r, 16);
            uint32_t nlen = take(&r, 16);
            if (r.overrun || (len ^ 0xffffu) != nlen) return -1;
            // Skip the stored bytes: whatever is still buffered first, then whole bytes.
            size_t skip = len;
            while (skip > 0 && r.count >= 8) {
                drop(&r, 8);
                skip--;
            }
            if (skip > 0) {
                if (skip > length - r.position) return -1;
                r.position += skip;
                r.buffer = 0;  // drop the bits read ahead from before the jump
            }
        } else if (type == 1) {
            fixed_tables(&litlen, &dist);
            if (skip_symbols(&r, &litlen, &dist) != 0) return -1;
        } else if (type == 2) {
            if (read_dynamic_tables(&r, &litlen, &dist) != 0) return -1;
            if (skip_symbols(&r, &litlen, &dist) != 0) return -1;
        } else {
            return -1;
        }
        if (final) {
            ends->final_header_bit = header;
            ends->end_bit = bit_position(&r);
            return 0;
        }
    }
}
