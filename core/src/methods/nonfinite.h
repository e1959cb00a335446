// SPDX-License-Identifier: GPL-3.0-or-later
// Non-finite input samples (docs/semantics.md, Non-finite values). An output is non-finite
// exactly when its kernel footprint covers a NaN or an infinity, and it is the value the
// reference's double sum gives there: a term K(v,u) * s is NaN when s is NaN or when an infinity
// meets a zero tap, otherwise an infinity of the product's sign; NaN terms, or infinities of both
// signs, make NaN; finite terms cannot change the outcome. Methods whose arithmetic would spread
// a non-finite sample (fft) or change its kind (separable's sum of pass pairs) compute these
// outputs from the non-finite samples alone: the cost is the kernel's taps per such sample, and
// nothing when there is none.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "convlab/kernel.h"

namespace convlab::detail {

// |v| as integer bits: for finite floats the integer order is the order of |v|; NaN and the
// infinities come above kNonFiniteBits.
inline std::uint32_t magnitudeBits(float v)
{
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return b & 0x7fffffffu;
}
inline constexpr std::uint32_t kNonFiniteBits = 0x7f800000u;

// The largest magnitudeBits of n values: at least kNonFiniteBits when one is NaN or infinite,
// else the bits of max |v|. An integer max reduction, so the compiler vectorizes it: this is
// the whole cost of the check on finite data.
inline std::uint32_t maxMagnitudeBits(const float* v, std::size_t n)
{
    std::uint32_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t b;
        std::memcpy(&b, v + i, sizeof b);
        b &= 0x7fffffffu;
        m = b > m ? b : m;
    }
    return m;
}

// Bit 31 set when v is NaN or infinite (its exponent all ones: adding 1 to it carries into bit
// 31), else clear.
inline std::uint32_t nonFiniteBit(float v)
{
    std::uint32_t b;
    std::memcpy(&b, &v, sizeof b);
    return (b & 0x7f800000u) + 0x00800000u;
}

// The OR of nonFiniteBit over n values: three vector instructions per vector of values.
inline std::uint32_t nonFiniteBits(const float* v, std::size_t n)
{
    std::uint32_t seen = 0;
    for (std::size_t i = 0; i < n; ++i) seen |= nonFiniteBit(v[i]);
    return seen;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same in 256-bit vectors, where the CPU has them.
__attribute__((target("avx2"))) inline std::uint32_t nonFiniteBitsAvx2(const float* v, std::size_t n)
{
    std::uint32_t seen = 0;
#pragma GCC unroll 4
    for (std::size_t i = 0; i < n; ++i) seen |= nonFiniteBit(v[i]);
    return seen;
}
#endif

// Whether one of n values is NaN or infinite: the whole cost of the check on finite data.
inline bool anyNonFinite(const float* v, std::size_t n)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2) return (nonFiniteBitsAvx2(v, n) >> 31) != 0;
#endif
    return (nonFiniteBits(v, n) >> 31) != 0;
}

inline float floatOfBits(std::uint32_t b)
{
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

// A non-finite sample at padded coordinates: output (y, x) reads the samples (y + v, x + u).
struct NonFiniteSample {
    int row = 0;
    int col = 0;
    float value = 0.0f;
};

// The kinds of the terms a non-finite sample contributes, per tap of a correlation-form kernel.
class NonFiniteTerms {
public:
    enum : unsigned char { kPlusInf = 1, kMinusInf = 2, kNaN = 4 };

    explicit NonFiniteTerms(const Kernel& k) : kw_(k.width), kh_(k.height), plusInf_(k.values.size())
    {
        for (std::size_t i = 0; i < k.values.size(); ++i) {
            const float t = k.values[i];
            plusInf_[i] = t > 0.0f ? kPlusInf : t < 0.0f ? kMinusInf : kNaN;
        }
    }

    // flags[x - x0] |= the kind of the term that `s` adds to output (y, x), for the outputs
    // x0 <= x < x0 + n whose footprint covers it (s.row must lie in [y, y + kh)).
    void add(const NonFiniteSample& s, int y, int x0, int n, unsigned char* flags) const
    {
        const int v = s.row - y;
        const int lo = std::max(x0, s.col - kw_ + 1), hi = std::min(x0 + n - 1, s.col);
        if (v < 0 || v >= kh_ || lo > hi) return;
        if (std::isnan(s.value)) {
            for (int x = lo; x <= hi; ++x) flags[x - x0] |= kNaN;
            return;
        }
        const unsigned char* taps = plusInf_.data() + static_cast<std::size_t>(v) * kw_;
        const bool negative = s.value < 0.0f;
        for (int x = lo; x <= hi; ++x) {
            unsigned char kind = taps[s.col - x];
            if (negative && kind != kNaN) kind ^= kPlusInf | kMinusInf;
            flags[x - x0] |= kind;
        }
    }

    // What the reference writes for an output whose terms have these kinds (flags != 0):
    // scale * sum + offset in double, rounded to float.
    static float value(unsigned char flags, double scale, double offset)
    {
        double sum = std::numeric_limits<double>::quiet_NaN();
        if (!(flags & kNaN) && flags != (kPlusInf | kMinusInf))
            sum = flags == kPlusInf ? std::numeric_limits<double>::infinity()
                                    : -std::numeric_limits<double>::infinity();
        return static_cast<float>(scale * sum + offset);
    }

    int width() const { return kw_; }
    int height() const { return kh_; }

private:
    int kw_, kh_;
    std::vector<unsigned char> plusInf_; // per tap: the kind of K(v,u) * +inf
};

// Rewrites the outputs of one row that non-finite samples reach. `samples` are sorted by row;
// out[(x - x0) * step] for x0 <= x < x0 + n is output (y, x) (step > 1: a channel of whole
// interleaved pixels); `flags` is scratch of at least n bytes.
inline void applyNonFiniteRow(const NonFiniteTerms& terms, const std::vector<NonFiniteSample>& samples, int y,
                              int x0, int n, double scale, double offset, float* out,
                              std::vector<unsigned char>& flags, int step = 1)
{
    auto first = std::lower_bound(samples.begin(), samples.end(), y,
                                  [](const NonFiniteSample& s, int row) { return s.row < row; });
    if (first == samples.end() || first->row >= y + terms.height()) return;
    flags.assign(static_cast<std::size_t>(n), 0);
    for (auto it = first; it != samples.end() && it->row < y + terms.height(); ++it)
        terms.add(*it, y, x0, n, flags.data());
    for (int i = 0; i < n; ++i)
        if (flags[i]) out[static_cast<std::size_t>(i) * step] = NonFiniteTerms::value(flags[i], scale, offset);
}

} // namespace convlab::detail
