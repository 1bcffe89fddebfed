// memmem is a GNU extension, which Swift's Glibc module does not export.
#define _GNU_SOURCE
#include <string.h>
#include "squeeze_deflate.h"

long squeeze_deflate_find_sync_marker(const uint8_t *bytes, size_t length) {
    static const uint8_t marker[4] = {0x00, 0x00, 0xff, 0xff};
    if (bytes == NULL || length < sizeof marker) return -1;
    const uint8_t *hit = memmem(bytes, length, marker, sizeof marker);
    return hit == NULL ? -1 : (long)(hit - bytes) + (long)sizeof marker;
}
