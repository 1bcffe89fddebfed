// A deflate (RFC 1951) structure walker. libdeflate has no way to continue a stream after
// its output, which always ends with BFINAL set; to splice its blocks into one gzip member
// the engine clears that bit and appends an empty stored block. Finding the bit means
// walking every block, which is an inflate without the output: this file does exactly that,
// as fast as a table-driven decoder can.
#include "squeeze_deflate.h"

#include <string.h>

enum {
    MAX_BITS = 15,
    WINDOW_BITS = 11,      // walk table windows; longer codes (rare symbols) take the canonical path
    CODE_LENGTH_BITS = 7,  // code length codes are at most 7 bits: their table is complete
    MAX_LITLEN = 288,
    MAX_DIST = 32,
};

/// A walk entry says how many bits to drop for the window it is indexed by: for a literal/
/// length window, the run of whole literal codes at its start and then, with WALK_MATCH, a
/// length code and its extra bits (the next window is a distance's); for a distance window,
/// the code and its extra bits. WALK_SLOW: the window starts with a long code, end-of-block,
/// or an invalid or unassigned code, which the canonical path sorts out.
enum {
    WALK_BITS = 0x3f,
    WALK_MATCH = 0x40,
    WALK_SLOW = 0x80,
};

typedef struct {
    const uint8_t *in;
    size_t length;
    size_t position;    // next byte to load
    uint64_t buffer;    // bits not yet consumed, LSB first
    unsigned count;     // valid bits in buffer
    int overrun;        // set when a read needed bits past the end
} bit_reader;

/// A canonical Huffman code: the per-length counts and the symbols sorted by code (puff's
/// method), which is also the order its codes are assigned in.
typedef struct {
    uint16_t counts[MAX_BITS + 1];
    uint16_t symbols[MAX_LITLEN];
} huffman;

/// A block's codes and its walk table: literal/length windows, then distance windows, so an
/// entry's WALK_MATCH bit picks the table of the next lookup without a branch.
typedef struct {
    huffman litlen, dist;
    uint8_t walk[2u << WINDOW_BITS];
} block_code;

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

/// `code` (less than 2^length) with its bits in reverse order: windows hold a code's first
/// bit lowest.
static inline uint32_t reverse_bits(uint32_t code, unsigned length) {
    code = ((code & 0x5555) << 1) | ((code >> 1) & 0x5555);
    code = ((code & 0x3333) << 2) | ((code >> 2) & 0x3333);
    code = ((code & 0x0f0f) << 4) | ((code >> 4) & 0x0f0f);
    code = ((code & 0x00ff) << 8) | ((code >> 8) & 0x00ff);
    return code >> (16 - length);
}

/// Builds the code for `n` symbols with `lengths`. Returns -1 for an over-subscribed set;
/// incomplete codes are allowed (deflate permits a single distance code), and a symbol that
/// falls in their gap is reported when decoded.
static int build(huffman *h, const uint8_t *lengths, unsigned n) {
    memset(h->counts, 0, sizeof h->counts);
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
    for (unsigned s = 0; s < n; s++)
        if (lengths[s] != 0) h->symbols[offsets[lengths[s]]++] = (uint16_t)s;
    return 0;
}

/// The codes of at most `bits` bits, in canonical order: bit-reversed code, length, symbol.
typedef struct {
    unsigned count;
    uint16_t reversed[MAX_LITLEN];
    uint8_t lengths[MAX_LITLEN];
    uint16_t symbols[MAX_LITLEN];
} short_codes;

static void list_short_codes(const huffman *h, unsigned bits, short_codes *list) {
    unsigned index = 0;
    uint32_t code = 0;
    for (unsigned len = 1; len <= bits; len++) {
        for (unsigned i = 0; i < h->counts[len]; i++, index++) {
            list->reversed[index] = (uint16_t)reverse_bits(code++, len);
            list->lengths[index] = (uint8_t)len;
            list->symbols[index] = h->symbols[index];
        }
        code <<= 1;
    }
    list->count = index;
}

/// Fills the literal/length entries of the windows that start with `prefix` (`used` bits of
/// whole literal codes): each next code that fits either extends the literal run (and
/// recurses, if the shortest code still fits) or is a length code that ends the entry. A window
/// is written once per code it starts with, so a build costs a few stores per entry.
static void fill_litlen(uint8_t *walk, const short_codes *list, uint32_t prefix, unsigned used) {
    for (unsigned i = 0; i < list->count && list->lengths[i] <= WINDOW_BITS - used; i++) {
        unsigned symbol = list->symbols[i];
        if (symbol == 256 || symbol >= 257 + 29) continue;  // the run stops before it
        unsigned bits = used + list->lengths[i];
        uint32_t first = prefix | ((uint32_t)list->reversed[i] << used);
        uint8_t entry = symbol < 256 ? (uint8_t)bits : (uint8_t)((bits + length_extra[symbol - 257]) | WALK_MATCH);
        for (uint32_t fill = first; fill < (1u << WINDOW_BITS); fill += 1u << bits) walk[fill] = entry;
        if (symbol < 256 && bits + list->lengths[0] <= WINDOW_BITS) fill_litlen(walk, list, first, bits);
    }
}

/// Builds both codes of a block and its walk table.
static int build_block_code(block_code *c, const uint8_t *litlen_lengths, unsigned nlen,
                            const uint8_t *dist_lengths, unsigned ndist) {
    if (build(&c->litlen, litlen_lengths, nlen) != 0) return -1;
    if (build(&c->dist, dist_lengths, ndist) != 0) return -1;
    memset(c->walk, WALK_SLOW, sizeof c->walk);
    short_codes list;
    list_short_codes(&c->litlen, WINDOW_BITS, &list);
    fill_litlen(c->walk, &list, 0, 0);
    list_short_codes(&c->dist, WINDOW_BITS, &list);
    uint8_t *dist_walk = c->walk + (1u << WINDOW_BITS);
    for (unsigned i = 0; i < list.count; i++) {
        unsigned symbol = list.symbols[i], len = list.lengths[i];  // below 30: ndist is checked
        for (uint32_t fill = list.reversed[i]; fill < (1u << WINDOW_BITS); fill += 1u << len)
            dist_walk[fill] = (uint8_t)(len + distance_extra[symbol]);
    }
    return 0;
}

/// Decodes one symbol the canonical way, one bit at a time (codes are sent most significant
/// bit first); -1 on a code outside the table or past the end of the input.
static int decode(bit_reader *r, const huffman *h) {
    if (r->count < MAX_BITS) refill(r);
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

static int read_dynamic_tables(bit_reader *r, block_code *c) {
    unsigned nlen = take(r, 5) + 257;
    unsigned ndist = take(r, 5) + 1;
    unsigned ncode = take(r, 4) + 4;
    if (nlen > 286 || ndist > 30) return -1;
    uint8_t lengths[MAX_LITLEN + MAX_DIST];
    memset(lengths, 0, 19);
    for (unsigned i = 0; i < ncode; i++) lengths[code_length_order[i]] = (uint8_t)take(r, 3);
    if (r->overrun) return -1;
    // The code length code fits a 7-bit table whole: entries are (symbol << 3) | length,
    // 0 for an unassigned code.
    huffman code_lengths;
    if (build(&code_lengths, lengths, 19) != 0) return -1;
    short_codes list;
    list_short_codes(&code_lengths, CODE_LENGTH_BITS, &list);
    uint8_t table[1u << CODE_LENGTH_BITS];
    memset(table, 0, sizeof table);
    for (unsigned k = 0; k < list.count; k++)
        for (uint32_t fill = list.reversed[k]; fill < sizeof table; fill += 1u << list.lengths[k])
            table[fill] = (uint8_t)((list.symbols[k] << 3) | list.lengths[k]);
    unsigned i = 0;
    while (i < nlen + ndist) {
        if (r->count < CODE_LENGTH_BITS) refill(r);
        unsigned entry = table[peek(r, CODE_LENGTH_BITS)];
        if (entry == 0 || (entry & 7) > r->count) return -1;
        drop(r, entry & 7);
        unsigned symbol = entry >> 3;
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
    return build_block_code(c, lengths, nlen, lengths + nlen, ndist);
}

static void fixed_tables(block_code *c) {
    uint8_t lengths[MAX_LITLEN + MAX_DIST];
    unsigned s = 0;
    for (; s < 144; s++) lengths[s] = 8;
    for (; s < 256; s++) lengths[s] = 9;
    for (; s < 280; s++) lengths[s] = 7;
    for (; s < 288; s++) lengths[s] = 8;
    for (; s < 288 + 30; s++) lengths[s] = 5;
    build_block_code(c, lengths, 288, lengths + 288, 30);
}

/// One symbol the careful way, every read checked: 1 for a literal or a match (from its
/// distance when `distance_only`), 0 for end-of-block, -1 for an error.
static int step(bit_reader *r, const block_code *c, int distance_only) {
    if (!distance_only) {
        int symbol = decode(r, &c->litlen);
        if (symbol < 0) return -1;
        if (symbol < 256) return 1;
        if (symbol == 256) return r->overrun ? -1 : 0;
        symbol -= 257;
        if (symbol >= 29) return -1;
        if (length_extra[symbol]) take(r, length_extra[symbol]);
    }
    int d = decode(r, &c->dist);
    if (d < 0 || d >= 30) return -1;
    if (distance_extra[d]) take(r, distance_extra[d]);
    return r->overrun ? -1 : 1;
}

/// The fast path, from `r` while 8 bytes can be loaded: one table lookup per entry, with no
/// check but the slow mark. A refill leaves at least 56 bits, enough for two entries (16 and
/// 24 bits at most) and the next window, so it comes every other entry; the next window is
/// looked up before it, so the lookups, a chain of dependent loads, never wait for a refill.
/// Stops before a slow entry; returns 1 when it is a distance's.
static int fast_walk(bit_reader *r, const block_code *c) {
    const uint8_t *in = r->in, *walk = c->walk;
    size_t position = r->position, last = r->length - 8;
    uint64_t buffer = r->buffer;
    unsigned count = r->count;
    uint64_t word;
    memcpy(&word, in + position, 8);
    buffer |= word << count;
    position += (63 - count) >> 3;
    count |= 56;
    unsigned index = buffer & ((1u << WINDOW_BITS) - 1);
    unsigned entry = walk[index];
    for (;;) {
        if (entry & WALK_SLOW) break;
        buffer >>= entry & WALK_BITS;
        count -= entry & WALK_BITS;
        index = ((entry & WALK_MATCH) << (WINDOW_BITS - 6)) | (buffer & ((1u << WINDOW_BITS) - 1));
        entry = walk[index];
        if (entry & WALK_SLOW) break;
        buffer >>= entry & WALK_BITS;
        count -= entry & WALK_BITS;
        index = ((entry & WALK_MATCH) << (WINDOW_BITS - 6)) | (buffer & ((1u << WINDOW_BITS) - 1));
        entry = walk[index];
        if (position > last) break;
        memcpy(&word, in + position, 8);
        buffer |= word << count;
        position += (63 - count) >> 3;
        count |= 56;
    }
    r->position = position;
    r->buffer = buffer;
    r->count = count;
    return (int)(index >> WINDOW_BITS);
}

/// Skips the symbols of one Huffman block up to and including its end-of-block code.
static int skip_symbols(bit_reader *r, const block_code *c) {
    for (;;) {
        int distance_only = r->length - r->position >= 8 ? fast_walk(r, c) : 0;
        // Near the end of the input, a long code or end-of-block: one symbol at a time.
        int status = step(r, c, distance_only);
        if (status <= 0) return status;
    }
}

int squeeze_deflate_find_end(const uint8_t *in, size_t length, squeeze_deflate_ends *ends) {
    if (in == NULL || ends == NULL) return -1;
    bit_reader r = {in, length, 0, 0, 0, 0};
    block_code code;
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
            fixed_tables(&code);
            if (skip_symbols(&r, &code) != 0) return -1;
        } else if (type == 2) {
            if (read_dynamic_tables(&r, &code) != 0) return -1;
            if (skip_symbols(&r, &code) != 0) return -1;
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
