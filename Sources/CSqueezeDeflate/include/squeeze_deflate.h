#ifndef SQUEEZE_DEFLATE_H
#define SQUEEZE_DEFLATE_H

#include <stddef.h>
#include <stdint.h>

/// Where a raw deflate stream's last block starts and where the stream ends, in bits from
/// the first byte (bit 0 is the least significant bit of byte 0, as deflate packs them).
typedef struct {
    /// The BFINAL bit of the block that has it set.
    uint64_t final_header_bit;
    /// The first bit after that block's end-of-block code (or its stored bytes).
    uint64_t end_bit;
} squeeze_deflate_ends;

/// Walks the block structure of a raw deflate stream without producing output: block headers,
/// Huffman tables and symbols are decoded, lengths and distances only skipped. Stops at the
/// first block with BFINAL set. Never reads outside `in[0..<length]`.
/// Returns 0 and fills `ends`, or -1 when the stream is malformed or truncated.
int squeeze_deflate_find_end(const uint8_t *in, size_t length, squeeze_deflate_ends *ends);

/// The end of the first sync-flush marker (the bytes 00 00 FF FF: an empty stored block's
/// lengths) in `bytes`, as an offset from their start; -1 when there is none.
long squeeze_deflate_find_sync_marker(const uint8_t *bytes, size_t length);

#endif
