// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU FFT method's transform sides and its choice of overlap-save tiling.
#include "methods/fft_tiling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "convlab/error.h"

namespace convlab::detail {

int smoothSizeAtLeast(int n, int largestPrime)
{
    for (int m = std::max(n, 1);; ++m) {
        int r = m;
        for (int p : {2, 3, 5, 7})
            while (p <= largestPrime && r % p == 0) r /= p;
        if (r == 1) return m;
    }
}

int fftFriendlySize(int n) { return smoothSizeAtLeast(n, 7); }

namespace {

// The odd parts a side may have, and what a point of such a side costs (fftSideWeight).
constexpr std::pair<int, double> kSideClasses[] = {{1, 1.0},  {3, 1.0},   {5, 1.1},   {9, 1.1},   {15, 1.1},
                                                   {7, 1.25}, {21, 1.25}, {25, 1.25}, {27, 1.25}, {45, 1.25}};

// Every offered side up to 2^30, in order (a few hundred): the tiling is chosen at every run
// and priced at every auto run, small ones included.
const std::vector<int>& offeredSides()
{
    static const std::vector<int> sides = [] {
        std::vector<int> all;
        for (const auto& [odd, weight] : kSideClasses)
            for (long long n = odd; n <= (1LL << 30); n *= 2) all.push_back(static_cast<int>(n));
        std::sort(all.begin(), all.end());
        return all;
    }();
    return sides;
}

} // namespace

// What a point of a transform side costs FFTW, relative to a side of 2s and at most one 3, by
// the side's odd part; 0 for a side not offered. Timed with Debian's FFTW 3.3.10 (forward and
// inverse 2-D pairs, measured plans; docs/architecture.md, "FFT tile sides"): per point and
// log2 of the points, sides such as 512, 768 and 1024 cost 0.19-0.22 ns, 576, 640 and 960
// 1.04-1.1 times that, 672, 720, 800, 864 and 896 1.1-1.3 times, and odd parts beyond these
// up to 3.5 times (5^4 = 625: 0.85 ns, 3^6 = 729: 0.63, 5^3 7 = 875: 0.65).
double fftSideWeight(int n)
{
    if (n < 1) return 0.0;
    while (n % 2 == 0) n /= 2;
    for (const auto& [odd, weight] : kSideClasses)
        if (odd == n) return weight;
    return 0.0;
}

int fastFftSideAtLeast(int n)
{
    const auto& sides = offeredSides();
    const auto it = std::lower_bound(sides.begin(), sides.end(), std::max(n, 1));
    if (it == sides.end()) throw Error("no FFT side of at least " + std::to_string(n) + " points");
    return *it;
}

namespace {

// The sides a whole axis of `padded` points may take as one tile: every offered side from
// `padded` up to the next power of two, which is itself offered.
std::vector<int> wholeAxisSides(int padded)
{
    std::vector<int> sides;
    const auto& offered = offeredSides();
    for (auto it = std::lower_bound(offered.begin(), offered.end(), std::max(padded, 1)); it != offered.end(); ++it) {
        sides.push_back(*it);
        if ((*it & (*it - 1)) == 0) break;
    }
    return sides;
}

// The tile sides one axis may take: sizes of only 2s and 3s, on which FFTW runs fastest per
// point, up to 1024, and a side a few times the kernel's extent, so that most of each
// transform is output. One tile when the whole padded axis is small, on any offered side up
// to the next power of two.
std::vector<int> tileSides(int padded, int k)
{
    const int wide = fastFftSideAtLeast(std::max(256, 4 * (k - 1)));
    if (padded <= std::max(1024, wide)) return wholeAxisSides(padded);
    std::vector<int> sides{wide};
    for (int n : {256, 384, 512, 768, 1024})
        if (n >= 2 * (k - 1) && n != wide) sides.push_back(n);
    return sides;
}

FftTiling tilingOf(int w, int h, int kw, int kh, int n0, int n1)
{
    FftTiling t;
    t.n0 = n0;
    t.n1 = n1;
    t.outH = std::min(h, t.n0 - kh + 1);
    t.outW = std::min(w, t.n1 - kw + 1);
    t.tilesY = (h + t.outH - 1) / t.outH;
    t.tilesX = (w + t.outW - 1) / t.outW;
    return t;
}

} // namespace

// The transform work of a tiling: n log2 n per tile of n points, weighted by what a point of
// each side costs (the cost model's terms).
double transformWork(const FftTiling& t)
{
    const double n = double(t.n0) * t.n1;
    const double weight = 0.5 * (fftSideWeight(t.n0) + fftSideWeight(t.n1));
    return n * std::log2(std::max(n, 2.0)) * weight * t.tilesX * t.tilesY;
}

// The tiling whose transforms do the least work. Tiles four kernel extents wide were the only
// choice before; for a 63x63 kernel on 4096x4096 they kept 194 of 256 points a side (484 tiles),
// where 768-point tiles keep 706 (36 tiles) for a fifth less work, and ran 13% faster here.
FftTiling fftTiling(int w, int h, int kw, int kh)
{
    // A run asks for its tiling several times (auto's estimate, the threads it takes, the run,
    // what it learns), each a search over pairs of sides: the last answer is kept per thread.
    thread_local std::array<int, 4> lastKey{-1, -1, -1, -1};
    thread_local FftTiling last;
    const std::array<int, 4> key{w, h, kw, kh};
    if (key == lastKey) return last;
    FftTiling best;
    double bestWork = INFINITY;
    for (int n0 : tileSides(h + kh - 1, kh))
        for (int n1 : tileSides(w + kw - 1, kw)) {
            const FftTiling t = tilingOf(w, h, kw, kh, n0, n1);
            const double work = transformWork(t);
            if (work < bestWork) {
                best = t;
                bestWork = work;
            }
        }
    lastKey = key;
    last = best;
    return best;
}

} // namespace convlab::detail
