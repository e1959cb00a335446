// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU's tiled direct kernel and 8/16-bit unpacking (core/cuda/tiles.h) run block by block on
// the CPU: every thread of a block loads its share of the tile, then every thread computes and
// stores its patch, exactly as the CUDA kernel orders them around its barrier. Checked against
// the reference for every border mode, anchors in each of the four vector alignments, widths
// that are and are not multiples of 4, images smaller than one block and tiles inside the image
// (the vector-load path). Needs no GPU, so the tiling logic is checked on every machine.
#include <QtTest>

#include <cstdint>
#include <tuple>
#include <vector>

#include "convlab/convolve.h"
#include "gpugeometry.h"
#include "testutil.h"
#include "tiles.h"

using namespace convlab;
using namespace convlab::test;
namespace tl = convlab::cuda::tiled;

namespace {

struct Simulation {
    Image out;
    int interiorBlocks = 0, borderBlocks = 0;
};

// The launch of directTiled<M> (kernels.cu), one block after another; with persistentBlocks > 0,
// that of directTiledPersistent<M> on a grid of that many blocks, each taking its tiles in turn
// (tiles.h, tileAt).
Simulation simulateTiled(const Image& in, const Kernel& k, BorderMode mode, float cval, float scale, float offset,
                         int persistentBlocks = 0)
{
    const cuda::Geometry g = geometryFor(in, k, mode, cval, scale, offset);
    const tl::Shape s = tl::shapeFor(g);
    std::vector<float> padded(static_cast<std::size_t>(s.kwp) * k.height, 0.0f);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) padded[static_cast<std::size_t>(v) * s.kwp + u] = k.at(v, u);
    std::vector<cuda::Vec4> shared(tl::sharedVectors(s));
    Simulation sim;
    sim.out = Image(in.width, in.height, in.channels);
    // Poison: every output must be written.
    std::fill(sim.out.data.begin(), sim.out.data.end(), std::numeric_limits<float>::quiet_NaN());
    std::vector<tl::TilePosition> order; // the tiles in the order the blocks take them
    if (persistentBlocks > 0) {
        for (int b = 0; b < persistentBlocks; ++b)
            for (int i = b; i < tl::tileCount(g); i += persistentBlocks) order.push_back(tl::tileAt(g, i));
    } else {
        for (int c = 0; c < in.channels; ++c)
            for (int y0 = 0; y0 < g.h; y0 += tl::kBlockH)
                for (int x0 = 0; x0 < g.w; x0 += tl::kBlockW) order.push_back({x0, y0, c});
    }
    for (const tl::TilePosition& t : order) {
                const int x0 = t.x0, y0 = t.y0, c = t.c;
                std::fill(shared.begin(), shared.end(), cuda::Vec4{1e30f, 1e30f, 1e30f, 1e30f});
                (tl::interior(g, s, x0, y0) ? sim.interiorBlocks : sim.borderBlocks)++;
                for (int tid = 0; tid < tl::kThreads; ++tid) tl::loadTile(in.plane(c), padded.data(), shared.data(), g, s, x0, y0, tid);
                for (int ty = 0; ty < tl::kThreadsY; ++ty)
                    for (int tx = 0; tx < tl::kThreadsX; ++tx) {
                        float acc[tl::kOutY][tl::kOutX];
                        switch (s.m) {
                        case 0: tl::computePatch<0>(shared.data(), s, tx, ty, acc); break;
                        case 1: tl::computePatch<1>(shared.data(), s, tx, ty, acc); break;
                        case 2: tl::computePatch<2>(shared.data(), s, tx, ty, acc); break;
                        default: tl::computePatch<3>(shared.data(), s, tx, ty, acc); break;
                        }
                        tl::storePatch(sim.out.plane(c), g, x0, y0, tx, ty, acc);
                    }
            }
    return sim;
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
        const int sizes[][3] = {{1, 1, 1},   {3, 2, 1},    {5, 37, 2},  {128, 32, 1}, {131, 33, 3},
                                {260, 70, 1}, {516, 101, 1}, {389, 97, 2}, {1, 200, 1}};
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
                const Simulation got = simulateTiled(in, k, mode.mode, 1.5f, 0.75f, 2.0f);
                interior += got.interiorBlocks;
                const double err = relativeError(got.out, want, k, in);
                QVERIFY2(err <= 1e-6, qPrintable(QString("k%1x%2 anchor %3,%4 %5: %6")
                                                     .arg(kc.kw)
                                                     .arg(kc.kh)
                                                     .arg(k.ax())
                                                     .arg(k.ay())
                                                     .arg(mode.name)
                                                     .arg(err)));
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
                const Simulation persistent = simulateTiled(in, k, BorderMode::Reflect, 0.0f, 1.0f, 0.0f, blocks);
                QCOMPARE(persistent.interiorBlocks + persistent.borderBlocks, tiles);
                QVERIFY2(persistent.out.data == perTile.out.data, qPrintable(QString("%1x%2x%3 on %4 blocks").arg(w).arg(h).arg(channels).arg(blocks)));
            }
        }
    }

    void sharedMemoryFitsHopperUpTo63()
    {
        // 63x63 needs the opt-in above 48 KB but stays under the 227 KB a Hopper block may have;
        // 3x3 stays under 48 KB (every architecture).
        cuda::Geometry g;
        g.kw = g.kh = 63;
        g.ax = g.ay = 31;
        QVERIFY(tl::sharedVectors(tl::shapeFor(g)) * 16 <= 227 * 1024);
        g.kw = g.kh = 3;
        g.ax = g.ay = 1;
        QVERIFY(tl::sharedVectors(tl::shapeFor(g)) * 16 <= 48 * 1024);
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
