// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU's tiled direct kernel and 8/16-bit unpacking (core/backends/cuda/tiles.h) run block by block on
// the CPU: every thread of a block loads its share of the tile, then every thread computes and
// stores its patches, exactly as the CUDA kernels order them around their barriers. Checked
// against the reference for every border mode, anchors in each of the four vector alignments,
// widths that are and are not multiples of 4, images smaller than one block, tiles inside the
// image (the vector-load path) and the largest kernels that fit; every candidate of
// tiled::kVariants must give the default's bits and write each output once, from its own
// thread. The FFT's vector pad and crop passes (fftlayout.h) are checked against the scalar
// ones the same way. Needs no GPU, so the index logic is checked on every machine.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <type_traits>
#include <vector>

#include "convlab/convolve.h"
#include "gpugeometry.h"
#include "testutil.h"
#include "fftlayout.h"
#include "tiles.h"

using namespace convlab;
using namespace convlab::test;
namespace tl = convlab::cuda::tiled;

namespace {

struct Simulation {
    Image out;
    int interiorBlocks = 0, borderBlocks = 0;
    bool rowMapsComplete = true; // mapTileRows wrote every tile row's entry
    QString miswritten;          // the first output written other than once by its own thread, if any
};

// Guard values around every plane the simulation reads or writes, a multiple of 4 floats so the
// planes stay 16-byte aligned for the vector loads and stores: a read past a plane's ends gives
// NaN (and a NaN output), a write there stays visible.
constexpr std::size_t kGuard = 4096;

std::vector<float> guarded(const float* plane, std::size_t n)
{
    std::vector<float> v(n + 2 * kGuard, std::numeric_limits<float>::quiet_NaN());
    std::copy_n(plane, n, v.begin() + kGuard);
    return v;
}

template <class F> void withInFlight(int inFlight, F&& f)
{
    switch (inFlight) {
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    default: QFAIL("a tiled::kVariants row loads with an InFlight the simulation does not instantiate");
    }
}

// The launch of a tiled::Variant (kernels.cu: directTiled, directTiledVariant, or
// directTiledPersistent on `persistentBlocks` blocks, each taking its tiles in turn, tiles.h
// tileAt), one block after another: every thread loads its share of the tile (for the vector
// loads, every thread maps its rows first, the kernel's first barrier), then every thread
// computes and stores each of its patches, as the kernel orders them around its barriers.
// Shared memory starts as NaN, so a tile value read before it is loaded shows even where a
// padding tap multiplies it by zero. Each thread's stores go to a NaN plane: the thread must
// have written every output of its patches (x0 + 4 tx .., y0 + 4 (ty + 8 p) .., clipped), which
// are then taken out; after each block nothing else may be left in the plane or its guards, so
// no output is written by another thread or twice.
Simulation simulateTiled(const Image& in, const Kernel& k, BorderMode mode, float cval, float scale, float offset,
                         const tl::Variant& v = {}, int persistentBlocks = 0)
{
    const cuda::Geometry g = geometryFor(in, k, mode, cval, scale, offset);
    const tl::Shape s = tl::shapeFor(g, v.patchesY);
    std::vector<float> padded(static_cast<std::size_t>(s.kwp) * k.height, 0.0f);
    for (int r = 0; r < k.height; ++r)
        for (int u = 0; u < k.width; ++u) padded[static_cast<std::size_t>(r) * s.kwp + u] = k.at(r, u);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<cuda::Vec4> shared(v.inFlight > 0 ? tl::sharedVectorsWithRowMap(s) : tl::sharedVectors(s));
    Simulation sim;
    sim.out = Image(in.width, in.height, in.channels);
    // Poison: every output must be written.
    std::fill(sim.out.data.begin(), sim.out.data.end(), nan);
    std::vector<int> writes(sim.out.data.size(), 0);
    const std::size_t planeValues = static_cast<std::size_t>(g.w) * g.h;
    std::vector<tl::TilePosition> order; // the tiles in the order the blocks take them
    if (persistentBlocks > 0) {
        for (int b = 0; b < persistentBlocks; ++b)
            for (int i = b; i < tl::tileCount(g); i += persistentBlocks) order.push_back(tl::tileAt(g, i));
    } else {
        for (int c = 0; c < in.channels; ++c)
            for (int y0 = 0; y0 < g.h; y0 += s.blockH)
                for (int x0 = 0; x0 < g.w; x0 += tl::kBlockW) order.push_back({x0, y0, c});
    }
    std::vector<std::vector<float>> planes;
    for (int c = 0; c < in.channels; ++c) planes.push_back(guarded(in.plane(c), planeValues));
    std::vector<float> store(planeValues + 2 * kGuard, nan);
    float* const target = store.data() + kGuard;
    for (const tl::TilePosition& t : order) {
        const int x0 = t.x0, y0 = t.y0, c = t.c;
        const float* plane = planes[c].data() + kGuard;
        std::fill(shared.begin(), shared.end(), cuda::Vec4{nan, nan, nan, nan});
        (tl::interior(g, s, x0, y0) ? sim.interiorBlocks : sim.borderBlocks)++;
        if (v.inFlight == 0) {
            for (int tid = 0; tid < tl::kThreads; ++tid) tl::loadTile(plane, padded.data(), shared.data(), g, s, x0, y0, tid);
        } else {
            int* rows = tl::rowMapOf(shared.data(), s);
            std::fill(rows, rows + s.th, std::numeric_limits<int>::min());
            for (int tid = 0; tid < tl::kThreads; ++tid) tl::mapTileRows(shared.data(), g, s, y0, tid);
            for (int r = 0; r < s.th; ++r) sim.rowMapsComplete &= rows[r] != std::numeric_limits<int>::min();
            withInFlight(v.inFlight, [&](auto n) {
                for (int tid = 0; tid < tl::kThreads; ++tid)
                    tl::loadTileByVectors<decltype(n)::value>(plane, padded.data(), shared.data(), g, s, x0, tid);
            });
        }
        for (int ty = 0; ty < tl::kThreadsY; ++ty)
            for (int tx = 0; tx < tl::kThreadsX; ++tx)
                for (int p = 0; p < s.patchesY; ++p) {
                    const int py = ty + p * tl::kThreadsY;
                    float acc[tl::kOutY][tl::kOutX];
                    switch (s.m) {
                    case 0: tl::computePatch<0>(shared.data(), s, tx, py, acc); break;
                    case 1: tl::computePatch<1>(shared.data(), s, tx, py, acc); break;
                    case 2: tl::computePatch<2>(shared.data(), s, tx, py, acc); break;
                    default: tl::computePatch<3>(shared.data(), s, tx, py, acc); break;
                    }
                    tl::storePatch(target, g, tl::vectorStoresFor(g, reinterpret_cast<std::uintptr_t>(target)), x0, y0, tx, py, acc);
                    for (int y = y0 + py * tl::kOutY; y < std::min(g.h, y0 + (py + 1) * tl::kOutY); ++y)
                        for (int x = x0 + tx * tl::kOutX; x < std::min(g.w, x0 + (tx + 1) * tl::kOutX); ++x) {
                            const std::size_t at = static_cast<std::size_t>(y) * g.w + x;
                            if (std::isnan(target[at]) && sim.miswritten.isEmpty())
                                sim.miswritten = QString("(%1, %2) not written by thread %3,%4 patch %5").arg(x).arg(y).arg(tx).arg(ty).arg(p);
                            sim.out.plane(c)[at] = target[at];
                            ++writes[c * planeValues + at];
                            target[at] = nan;
                        }
                }
        for (std::size_t i = 0; i < store.size(); ++i)
            if (!std::isnan(store[i]) && sim.miswritten.isEmpty()) {
                const long long at = static_cast<long long>(i) - static_cast<long long>(kGuard);
                sim.miswritten = QString("value %1 of channel %2 written outside its thread's patch").arg(at).arg(c);
                store[i] = nan;
            }
    }
    for (std::size_t i = 0; i < writes.size(); ++i)
        if (writes[i] != 1 && sim.miswritten.isEmpty())
            sim.miswritten = QString("output %1 written %2 times").arg(i).arg(writes[i]);
    return sim;
}

// The distinct simulations behind tiled::kVariants: variants that differ only in minBlocks (a
// register cap) run the same code, so one of each (patchesY, inFlight) stands for them all.
std::vector<tl::Variant> distinctVariants()
{
    std::vector<tl::Variant> out;
    for (const tl::VariantRow& row : tl::kVariants) {
        if (row.v.persistent) continue; // persistentGridCoversEveryTile
        bool seen = false;
        for (const tl::Variant& v : out) seen |= v.patchesY == row.v.patchesY && v.inFlight == row.v.inFlight;
        if (!seen) out.push_back(row.v);
    }
    return out;
}

QString variantName(const tl::Variant& v)
{
    return QString("patches %1, %2 in flight").arg(v.patchesY).arg(v.inFlight);
}

// One thread of a quad pass's launch grid (QuadGrid, kQuadThreadsX x kQuadThreadsY threads a
// block) that passes the kernel's guard: plane or batch z, row, and the first of its four columns.
struct QuadThread {
    int z, row, column;
};

// Every such thread, in launch order, that lies inside `columns` x `rows`.
std::vector<QuadThread> quadThreads(const cuda::QuadGrid& grid, int columns, int rows)
{
    std::vector<QuadThread> threads;
    for (int z = 0; z < grid.z; ++z)
        for (int by = 0; by < grid.y; ++by)
            for (int bx = 0; bx < grid.x; ++bx)
                for (int ty = 0; ty < cuda::kQuadThreadsY; ++ty)
                    for (int tx = 0; tx < cuda::kQuadThreadsX; ++tx) {
                        const int column = 4 * (bx * cuda::kQuadThreadsX + tx), row = by * cuda::kQuadThreadsY + ty;
                        if (column < columns && row < rows) threads.push_back({z, row, column});
                    }
    return threads;
}

} // namespace

class TestGpuTiles : public QObject {
    Q_OBJECT
private slots:
    void tiledDirectMatchesReference_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("channels");
        const int sizes[][3] = {{1, 1, 1},    {3, 2, 1},     {4, 4, 1},    {5, 37, 2},  {128, 32, 1},
                                {131, 33, 3}, {132, 65, 1},  {260, 70, 1}, {516, 101, 1}, {389, 97, 2},
                                {1, 200, 1},  {8, 130, 2}};
        for (const auto& s : sizes) QTest::addRow("%dx%dx%d", s[0], s[1], s[2]) << s[0] << s[1] << s[2];
    }
    void tiledDirectMatchesReference()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, channels);
        const Image in = randomImage(w, h, channels, 17u + w * 3 + h);
        // Kernels whose anchors give every alignment (-ax mod 4), even and non-square shapes,
        // explicit anchors at the corners, and kernels larger than the image.
        struct Case {
            int kw, kh, ax, ay;
        };
        const Case cases[] = {{1, 1, -1, -1}, {3, 3, -1, -1}, {5, 5, -1, -1}, {4, 2, -1, -1}, {7, 3, -1, -1},
                              {2, 6, 0, 5},   {6, 1, 5, 0},   {9, 4, 3, 1},   {13, 11, -1, -1}, {17, 5, 16, 4}};
        int interior = 0;
        for (const Case& kc : cases) {
            Kernel k = randomKernel(kc.kw, kc.kh, KernelKind::Dense, 5u + kc.kw * 7 + kc.kh);
            k.anchorX = kc.ax;
            k.anchorY = kc.ay;
            for (const BorderModeInfo& mode : borderModes()) {
                const Image want = referenceFor(in, k, mode.mode, 1.5f, 0.75f, 2.0f);
                const Simulation block = simulateTiled(in, k, mode.mode, 1.5f, 0.75f, 2.0f);
                interior += block.interiorBlocks;
                const QString what = QString("k%1x%2 anchor %3,%4 %5").arg(kc.kw).arg(kc.kh).arg(k.ax()).arg(k.ay()).arg(mode.name);
                QVERIFY2(block.miswritten.isEmpty(), qPrintable(what + ": " + block.miswritten));
                const double err = relativeError(block.out, want, k, in);
                QVERIFY2(err <= 1e-6, qPrintable(what + QString(": %1").arg(err)));
                // Every candidate gives the default's bits (the session keeps none that does not).
                for (const tl::Variant& v : distinctVariants()) {
                    const Simulation got = simulateTiled(in, k, mode.mode, 1.5f, 0.75f, 2.0f, v);
                    const QString which = what + ", " + variantName(v);
                    QVERIFY2(got.miswritten.isEmpty(), qPrintable(which + ": " + got.miswritten));
                    QVERIFY2(got.rowMapsComplete, qPrintable(which + ": a tile row left unmapped"));
                    QVERIFY2(std::memcmp(got.out.data.data(), block.out.data.data(), sizeof(float) * got.out.data.size()) == 0,
                             qPrintable(which + QString(": not the default's bits (error %1)").arg(relativeError(got.out, want, k, in))));
                }
            }
        }
        // The vector-load path must be exercised where the image holds whole tiles.
        if (w % 4 == 0 && w >= 260 && h >= 70) QVERIFY(interior > 0);
    }

    // A persistent grid (tiles.h, tileAt) covers every tile of every channel once, whatever the
    // number of blocks: fewer blocks than tiles, exactly as many, more (blocks left idle), one.
    void persistentGridCoversEveryTile()
    {
        const Kernel k = randomKernel(5, 3, KernelKind::Dense, 8);
        for (auto [w, h, channels] : {std::tuple{389, 97, 3}, {128, 32, 1}, {5, 37, 2}, {516, 101, 4}}) {
            const Image in = randomImage(w, h, channels, 3u + w);
            const Simulation perTile = simulateTiled(in, k, BorderMode::Reflect, 0.0f, 1.0f, 0.0f);
            cuda::Geometry g;
            g.w = w;
            g.h = h;
            g.channels = channels;
            const int tiles = tl::tileCount(g);
            QCOMPARE(tiles, perTile.interiorBlocks + perTile.borderBlocks);
            for (int blocks : {1, 7, tiles - 1, tiles, tiles + 5}) {
                if (blocks < 1) continue;
                const Simulation persistent = simulateTiled(in, k, BorderMode::Reflect, 0.0f, 1.0f, 0.0f,
                                                            tl::variantOf(cuda::TiledGrid::Persistent), blocks);
                QVERIFY2(persistent.miswritten.isEmpty(), qPrintable(persistent.miswritten));
                QCOMPARE(persistent.interiorBlocks + persistent.borderBlocks, tiles);
                QVERIFY2(persistent.out.data == perTile.out.data, qPrintable(QString("%1x%2x%3 on %4 blocks").arg(w).arg(h).arg(channels).arg(blocks)));
            }
        }
    }

    void sharedMemoryFitsHopperUpTo63()
    {
        // 63x63 needs the opt-in above 48 KB but stays under the 227 KB a Hopper block may have;
        // 3x3 stays under 48 KB (every architecture). So for every candidate's tile (with its
        // row map where it loads by vectors): none falls back to the default's tile up to 63x63.
        for (const tl::VariantRow& row : tl::kVariants) {
            cuda::Geometry g;
            g.kw = g.kh = 63;
            g.ax = g.ay = 31;
            auto bytes = [&] {
                const tl::Shape s = tl::shapeFor(g, row.v.patchesY);
                return 16 * (row.v.inFlight > 0 ? tl::sharedVectorsWithRowMap(s) : tl::sharedVectors(s));
            };
            QVERIFY2(bytes() <= 227 * 1024, row.name);
            g.kw = g.kh = 3;
            g.ax = g.ay = 1;
            QVERIFY2(bytes() <= 48 * 1024, row.name);
        }
    }

    // Each candidate at the largest square kernel whose tile fits the 227 KB a Hopper block may
    // have (the launcher's limit there), on an image smaller than the kernel and on one holding
    // whole vectors, every border mode: the default's bits, every output written once.
    void largestKernelsFitAndMatch()
    {
        for (const tl::Variant& v : distinctVariants()) {
            int side = 1;
            for (;; ++side) {
                cuda::Geometry g;
                g.kw = g.kh = side + 1;
                g.ax = g.ay = side / 2;
                const tl::Shape s = tl::shapeFor(g, v.patchesY);
                if (16 * (v.inFlight > 0 ? tl::sharedVectorsWithRowMap(s) : tl::sharedVectors(s)) > 227 * 1024) break;
            }
            QVERIFY2(side >= 63, qPrintable(variantName(v)));
            const Kernel k = randomKernel(side, side, KernelKind::Dense, 11u + side);
            for (auto [w, h] : {std::pair{37, 29}, std::pair{136, 9}}) {
                const Image in = randomImage(w, h, 1, 5u + w);
                for (BorderMode mode : {BorderMode::Constant, BorderMode::Reflect, BorderMode::Wrap}) {
                    const Simulation block = simulateTiled(in, k, mode, 0.5f, 1.0f, 0.0f);
                    const Simulation got = simulateTiled(in, k, mode, 0.5f, 1.0f, 0.0f, v);
                    const QString what = QString("%1, k%2 on %3x%4").arg(variantName(v)).arg(side).arg(w).arg(h);
                    QVERIFY2(got.miswritten.isEmpty(), qPrintable(what + ": " + got.miswritten));
                    QVERIFY2(relativeError(block.out, referenceFor(in, k, mode, 0.5f, 1.0f, 0.0f), k, in) <= 1e-6, qPrintable(what));
                    QVERIFY2(std::memcmp(got.out.data.data(), block.out.data.data(), sizeof(float) * got.out.data.size()) == 0,
                             qPrintable(what + ": not the default's bits"));
                }
            }
        }
    }

    // vectorColumns: the whole-vector columns of a tile are exactly those whose four columns lie
    // inside the image, for tiles left of, across, right of and wider than the image.
    void vectorColumnsAreThoseInside()
    {
        for (int w : {4, 8, 12, 128, 132, 260, 3, 130}) {
            for (int kw : {1, 3, 8, 17, 63}) {
                cuda::Geometry g;
                g.w = w;
                g.h = 1;
                g.kw = kw;
                g.kh = 1;
                for (int ax = 0; ax < kw; ax += std::max(1, kw / 4)) {
                    g.ax = ax;
                    const tl::Shape s = tl::shapeFor(g);
                    for (int x0 = 0; x0 < w; x0 += tl::kBlockW) {
                        const tl::VectorColumns vc = tl::vectorColumns(g, s, x0);
                        for (int e = 0; e < s.tw4; ++e) {
                            const long long sx = static_cast<long long>(x0) - s.left + 4 * e;
                            const bool inside = w % 4 == 0 && sx >= 0 && sx + 4 <= w;
                            QVERIFY2(inside == (e >= vc.first && e < vc.end),
                                     qPrintable(QString("w %1, k%2 anchor %3, x0 %4, vector %5").arg(w).arg(kw).arg(ax).arg(x0).arg(e)));
                        }
                    }
                }
            }
        }
    }

    // The FFT's vector pad and crop passes (fftlayout.h padQuad, cropQuad) over their launch grid
    // (quadGrid, kQuadThreadsX x kQuadThreadsY threads of four values): every value the scalar
    // passes write (paddedSample; transformIndex with scale and offset), bit for bit, each by
    // its own thread and once, for planes and overlap-save tiles whose steps are and are not
    // multiples of 4, anchors off centre, every border mode, tiny images.
    void fftPadAndCropQuadsMatchScalar()
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        struct Case {
            int w, h, channels, kw, kh, ax, ay;
        };
        const Case cases[] = {{4, 1, 1, 1, 1, 0, 0},   {8, 3, 2, 3, 3, 1, 1},  {40, 17, 1, 5, 7, 4, 0},
                              {204, 151, 3, 13, 7, 9, 2}, {260, 33, 1, 31, 3, 15, 1}, {36, 36, 2, 2, 9, 0, 8}};
        for (const Case& kc : cases) {
            const Image in = randomImage(kc.w, kc.h, kc.channels, 3u + kc.w);
            for (const BorderModeInfo& mode : borderModes()) {
                cuda::Geometry g;
                g.w = kc.w;
                g.h = kc.h;
                g.channels = kc.channels;
                g.kw = kc.kw;
                g.kh = kc.kh;
                g.ax = kc.ax;
                g.ay = kc.ay;
                g.mode = mode.mode;
                g.cval = -0.25f;
                g.scale = 1.5f;
                g.offset = -2.0f;
                const int ph = kc.h + kc.kh - 1, pw = kc.w + kc.kw - 1, side = std::max(kc.kw, kc.kh);
                std::vector<cuda::FftLayout> layouts = {cuda::planeLayout(g, ph, (pw + 3) / 4 * 4),
                                                        cuda::planeLayout(g, ph + 3, (pw + 3) / 4 * 4 + 8)};
                for (int t : {2 * side, 16, 32, 64})
                    if (t > side && t % 4 == 0) layouts.push_back(cuda::tiledLayout(g, t));
                for (const cuda::FftLayout& l : layouts) {
                    const QString what = QString("%1x%2x%3 k%4x%5 %6, %7 x %8 of %9x%10")
                                             .arg(kc.w).arg(kc.h).arg(kc.channels).arg(kc.kw).arg(kc.kh).arg(mode.name)
                                             .arg(l.tilesX).arg(l.tilesY).arg(l.n1).arg(l.n0);
                    QVERIFY2(l.n1 % 4 == 0, qPrintable(what));
                    const int batch = l.batch(g.channels);
                    const std::size_t realValues = static_cast<std::size_t>(l.realPer()) * batch;
                    // Pad: the scalar pass's values, then the quads' threads one by one.
                    std::vector<float> padded(realValues + 2 * kGuard, nan);
                    float* const p = padded.data() + kGuard;
                    const std::vector<float> src = guarded(in.data.data(), in.data.size());
                    const cuda::QuadGrid pg = cuda::quadGrid(l.n1, l.n0, batch);
                    QCOMPARE(pg.z, batch);
                    int padded4 = 0;
                    for (const QuadThread& q : quadThreads(pg, l.n1, l.n0)) { // padEmbedQuads' guard
                        const int b = q.z, i = q.row, j = q.column;
                        cuda::padQuad(src.data() + kGuard, p, g, l, b, i, j);
                        const std::size_t at = (static_cast<std::size_t>(b) * l.n0 + i) * l.n1 + j;
                        for (int e = 0; e < 4; ++e) {
                            const float want = cuda::paddedSample(in.data.data(), g, l, b, i, j + e);
                            QVERIFY2(std::memcmp(&p[at + e], &want, sizeof want) == 0,
                                     qPrintable(what + QString(": pad (%1, %2, %3)").arg(b).arg(i).arg(j + e)));
                            p[at + e] = nan;
                        }
                        ++padded4;
                    }
                    QCOMPARE(std::size_t(padded4) * 4, realValues);
                    QVERIFY2(std::all_of(padded.begin(), padded.end(), [](float x) { return std::isnan(x); }),
                             qPrintable(what + ": pad wrote outside its threads' values"));
                    if (kc.w % 4 != 0) continue; // the crop's quads need whole output vectors
                    // Crop: transform values to read, the quads' threads one by one.
                    std::vector<float> transforms(realValues);
                    for (std::size_t i = 0; i < realValues; ++i) transforms[i] = std::sin(0.37f * float(i)) * 3.0f;
                    std::vector<float> out(in.data.size() + 2 * kGuard, nan);
                    float* const o = out.data() + kGuard;
                    const cuda::QuadGrid cg = cuda::quadGrid(g.w, g.h, g.channels);
                    int cropped4 = 0;
                    for (const QuadThread& q : quadThreads(cg, g.w, g.h)) { // cropQuads' guard
                        const int c = q.z, y = q.row, x = q.column;
                        cuda::cropQuad(transforms.data(), o, g, l, c, y, x);
                        const std::size_t at = (static_cast<std::size_t>(c) * g.h + y) * g.w + x;
                        for (int e = 0; e < 4; ++e) {
                            const float want =
                                std::fma(g.scale, transforms[cuda::transformIndex(g, l, c, y, x + e)], g.offset);
                            QVERIFY2(std::memcmp(&o[at + e], &want, sizeof want) == 0,
                                     qPrintable(what + QString(": crop (%1, %2, %3)").arg(c).arg(y).arg(x + e)));
                            o[at + e] = nan;
                        }
                        ++cropped4;
                    }
                    QCOMPARE(std::size_t(cropped4) * 4, in.data.size());
                    QVERIFY2(std::all_of(out.begin(), out.end(), [](float x) { return std::isnan(x); }),
                             qPrintable(what + ": crop wrote outside its threads' values"));
                }
            }
        }
    }

    void unpackSamples()
    {
        // 3 x 2 pixels of BGR 8-bit with a padded stride, and 16-bit gray+alpha.
        const int w = 3, h = 2;
        std::vector<std::uint8_t> bgr(2 * 12, 0);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c) bgr[y * 12 + x * 3 + c] = std::uint8_t(100 * c + 10 * y + x);
        const int order[4] = {2, 1, 0, 3};
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(cuda::unpackSample<std::uint8_t>(bgr.data(), w, 3, 12, order, c, y, x),
                             float(100 * (2 - c) + 10 * y + x));
        std::vector<std::uint16_t> ga = {65535, 7, 300, 0, 1, 2};
        const int identity[4] = {0, 1, 2, 3};
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(ga.data());
        QCOMPARE(cuda::unpackSample<std::uint16_t>(bytes, 3, 2, 12, identity, 0, 0, 0), 65535.0f);
        QCOMPARE(cuda::unpackSample<std::uint16_t>(bytes, 3, 2, 12, identity, 1, 0, 1), 0.0f);
        QCOMPARE(cuda::unpackSample<std::uint16_t>(bytes, 3, 2, 12, identity, 0, 0, 2), 1.0f);
    }
};

QTEST_APPLESS_MAIN(TestGpuTiles)
#include "test_gpu_tiles.moc"
