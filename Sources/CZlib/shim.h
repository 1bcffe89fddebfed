#ifndef SQUEEZE_CZLIB_SHIM_H
#define SQUEEZE_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro in zlib.h; Swift cannot call macros, so wrap it.
static inline int squeeze_deflateInit2(z_streamp strm, int level, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, Z_DEFLATED, windowBits, memLevel, strategy);
}

/// inflateInit2 is a macro in zlib.h as well.
static inline int squeeze_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
#endif
