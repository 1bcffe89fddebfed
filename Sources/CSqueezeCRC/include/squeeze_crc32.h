#ifndef SQUEEZE_CRC32_H
#define SQUEEZE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/// The fewest bytes `squeeze_crc32_fold` takes.
#define SQUEEZE_CRC32_FOLD_MINIMUM 256

/// 1 when this CPU and kernel run 256-bit carry-less multiplies (AVX2 and VPCLMULQDQ), so
/// `squeeze_crc32_fold` may be called; 0 otherwise.
int squeeze_crc32_fold_available(void);

/// Folds the gzip CRC-32 of `length` bytes (at least `SQUEEZE_CRC32_FOLD_MINIMUM`),
/// continuing from `crc`, four 256-bit lanes at a time. Returns how many leading bytes it
/// consumed (a multiple of 16) and leaves in `state` 16 bytes with the same remainder: the
/// checksum is the CRC-32 of `state` from seed 0xFFFFFFFF, continued over the bytes not
/// consumed. Only call it when `squeeze_crc32_fold_available()` says so.
size_t squeeze_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t length, uint8_t state[16]);

#endif
