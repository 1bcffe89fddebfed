// CRC-32 by folding with carry-less multiplication, 128 bytes per step in four 256-bit
// registers. ISA-L 2.30 folds with 128-bit PCLMULQDQ only (or 512-bit with AVX-512, which
// these AMD machines lack); 256-bit VPCLMULQDQ doubles the rate on data in cache.
//
// Bit-reflected arithmetic modulo the gzip polynomial P. A 16-byte chunk A is moved D bits
// further along as A_lo * K1 ^ A_hi * K2, with K1 = x^(D+32) mod P and K2 = x^(D-32) mod P,
// each reflected over 32 bits and shifted left once (the reflected product lands one bit low).
// The initial CRC is folded in by XORing its complement into the first four bytes. What is
// left is one 16-byte chunk with the same remainder as everything consumed, which the caller
// finishes with any byte-wise CRC.

#include "squeeze_crc32.h"

#if defined(__x86_64__)

#include <cpuid.h>
#include <immintrin.h>

// D = 1024 bits (128 bytes, the main loop's stride): x^1056 and x^992.
#define K1_1024 0x1e88ef372ULL
#define K2_1024 0x14a7fe880ULL
// D = 128 bits (one chunk, to gather the lanes): x^160 and x^96.
#define K1_128 0x1751997d0ULL
#define K2_128 0x0ccaa009eULL

// CPUID read here rather than through __builtin_cpu_supports, whose answer depends on the
// feature layout of whichever runtime (libgcc or compiler-rt) provides it.
int squeeze_crc32_fold_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int pclmul = (ecx >> 1) & 1, osxsave = (ecx >> 27) & 1, avx = (ecx >> 28) & 1;
    if (!pclmul || !osxsave || !avx) return 0;
    // The kernel saves the SSE and AVX registers (XCR0 bits 1 and 2) across switches.
    unsigned int xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 0x6) != 0x6) return 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    const int avx2 = (ebx >> 5) & 1, vpclmulqdq = (ecx >> 10) & 1;
    return avx2 && vpclmulqdq;
}

__attribute__((target("avx2,pclmul,vpclmulqdq")))
static inline __m256i fold256(__m256i x, __m256i k, __m256i next) {
    __m256i lo = _mm256_clmulepi64_epi128(x, k, 0x00);
    __m256i hi = _mm256_clmulepi64_epi128(x, k, 0x11);
    return _mm256_xor_si256(_mm256_xor_si256(lo, hi), next);
}

__attribute__((target("avx2,pclmul,vpclmulqdq")))
static inline __m128i fold128(__m128i x, __m128i k, __m128i next) {
    __m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
    __m128i hi = _mm_clmulepi64_si128(x, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

__attribute__((target("avx2,pclmul,vpclmulqdq")))
size_t squeeze_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t length, uint8_t state[16]) {
    if (length < SQUEEZE_CRC32_FOLD_MINIMUM) return 0;
    const uint8_t *p = bytes;
    size_t left = length;
    const __m256i k1024 = _mm256_set_epi64x((long long)K2_1024, (long long)K1_1024, (long long)K2_1024, (long long)K1_1024);
    const __m128i k128 = _mm_set_epi64x((long long)K2_128, (long long)K1_128);

    __m256i x0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i x1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i x2 = _mm256_loadu_si256((const __m256i *)(p + 64));
    __m256i x3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    x0 = _mm256_xor_si256(x0, _mm256_set_epi32(0, 0, 0, 0, 0, 0, 0, (int)~crc));
    p += 128;
    left -= 128;
    while (left >= 128) {
        x0 = fold256(x0, k1024, _mm256_loadu_si256((const __m256i *)p));
        x1 = fold256(x1, k1024, _mm256_loadu_si256((const __m256i *)(p + 32)));
        x2 = fold256(x2, k1024, _mm256_loadu_si256((const __m256i *)(p + 64)));
        x3 = fold256(x3, k1024, _mm256_loadu_si256((const __m256i *)(p + 96)));
        p += 128;
        left -= 128;
    }

    // The eight 16-byte lanes, in the order their bytes came, gathered into one.
    __m128i acc = _mm256_castsi256_si128(x0);
    acc = fold128(acc, k128, _mm256_extracti128_si256(x0, 1));
    acc = fold128(acc, k128, _mm256_castsi256_si128(x1));
    acc = fold128(acc, k128, _mm256_extracti128_si256(x1, 1));
    acc = fold128(acc, k128, _mm256_castsi256_si128(x2));
    acc = fold128(acc, k128, _mm256_extracti128_si256(x2, 1));
    acc = fold128(acc, k128, _mm256_castsi256_si128(x3));
    acc = fold128(acc, k128, _mm256_extracti128_si256(x3, 1));
    while (left >= 16) {
        acc = fold128(acc, k128, _mm_loadu_si128((const __m128i *)p));
        p += 16;
        left -= 16;
    }
    _mm_storeu_si128((__m128i *)state, acc);
    return length - left;
}

#else

// Other architectures: ISA-L (or zlib) does the whole checksum.
int squeeze_crc32_fold_available(void) { return 0; }

size_t squeeze_crc32_fold(uint32_t crc, const uint8_t *bytes, size_t length, uint8_t state[16]) {
    (void)crc;
    (void)bytes;
    (void)length;
    (void)state;
    return 0;
}

#endif
