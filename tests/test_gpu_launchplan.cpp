// SPDX-License-Identifier: GPL-3.0-or-later
// The CUDA launches' host-side rules (core/backends/cuda/launchplan.h), checked on the CPU for
// the devices the build targets (sm_75 to sm_90, by their shared memory a block):
// - the direct plan: the layout the uploader lays the taps out in is the layout the chosen
//   kernel reads, for every kernel shape of issue 51 (long thin kernels, the squares that leave
//   the tiled kernel on sm_86/89, kernels past constant memory) and every tiled candidate;
// - every kernel's launch geometry within the device's limits for the largest accepted image
//   (65536 a side), the row pass's folded rows covering each padded row once;
// - the tiled kernel's vector stores only into 16-byte aligned outputs.
#include <QtTest>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "convlab/image.h"
#include "fftlayout.h"
#include "launchplan.h"
#include "tiles.h"

using namespace convlab;
using namespace convlab::cuda;

namespace {

// Opt-in shared memory a block, per architecture (CUDA's programming guide, compute capabilities).
const std::map<std::string, std::size_t> kDevices = {
    {"default 48 KB", 48 * 1024}, {"sm_75", 64 * 1024}, {"sm_80", 163 * 1024}, {"sm_86/89", 99 * 1024},
    {"sm_90", 227 * 1024}};

Geometry geometry(int w, int h, int channels, int kw, int kh)
{
    Geometry g;
    g.w = w;
    g.h = h;
    g.channels = channels;
    g.kw = kw;
    g.kh = kh;
    g.ax = kw / 2;
    g.ay = kh / 2;
    return g;
}

// Kernel shapes (width x height): those issue 51 names and their neighbours.
std::vector<std::pair<int, int>> kernelShapes()
{
    std::vector<std::pair<int, int>> s = {{1, 1}, {3, 3}, {63, 63}, {1, 401}, {401, 1}, {3, 500}, {500, 3},
                                          {31, 300}, {300, 31}, {5, 364}, {15, 327}, {129, 129}, {130, 127},
                                          {127, 130}, {2, 8193}, {1, 16385}};
    for (int n = 385; n <= 1025; n += 64) s.push_back({1, n});
    for (int n = 271; n <= 528; n += 37) s.push_back({31, n});
    for (int n = 853; n <= 1025; n += 43) s.push_back({n, 15});
    for (int n = 90; n <= 130; ++n) s.push_back({n, n});
    return s;
}

// Distinct taps, so a tap read from the wrong place shows.
std::vector<float> distinctTaps(int kw, int kh)
{
    std::vector<float> t(static_cast<std::size_t>(kw) * kh);
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = 1.0f + static_cast<float>(i);
    return t;
}

// What the chosen kernel reads at tap (v, u): the laid-out values at the row stride the kernel
// reads with (layoutReadBy), in the memory it reads (constant or the buffer), must be the tap,
// and zero in a row's padding.
bool readsTheTaps(const DirectPlan& p, const Geometry& g, const std::vector<float>& uploaded, QString* why)
{
    const KernelLayout read = layoutReadBy(p.kernel, g);
    if (read.constantMemory != p.layout.constantMemory) {
        *why = "the kernel reads another memory than the taps were uploaded to";
        return false;
    }
    if (read.constantMemory && uploaded.size() > static_cast<std::size_t>(kConstantKernelValues)) {
        *why = "more taps than constant memory holds";
        return false;
    }
    const std::vector<float> taps = distinctTaps(g.kw, g.kh);
    for (int v = 0; v < g.kh; ++v)
        for (int u = 0; u < read.rowStride; ++u) {
            const std::size_t at = static_cast<std::size_t>(v) * read.rowStride + u;
            const float want = u < g.kw ? taps[static_cast<std::size_t>(v) * g.kw + u] : 0.0f; // padding reads zeros
            if (at >= uploaded.size() || uploaded[at] != want) {
                *why = QString("tap (%1, %2) reads %3, not %4").arg(v).arg(u).arg(at < uploaded.size() ? uploaded[at] : -1).arg(want);
                return false;
            }
        }
    return true;
}

// Every kernel's launches for `g` on a device with `optin` bytes of shared memory a block.
std::vector<std::pair<const char*, LaunchShape>> everyLaunch(const Geometry& g, std::size_t optin)
{
    std::vector<std::pair<const char*, LaunchShape>> out;
    for (const tiled::VariantRow& row : tiled::kVariants) {
        const DirectPlan p = directPlanFor(g, row.grid, optin);
        out.push_back({row.name, p.kernel == DirectKernel::Tiled && tiled::variantOf(p.grid).persistent
                                     ? persistentLaunch(g, p.launch.sharedBytes, 132 * 6)
                                     : p.launch});
    }
    out.push_back({"unpack", unpackLaunch(g.w, g.h, g.channels)});
    if (g.kw + kRowThreads - 1 <= static_cast<int>(kDefaultSharedBytes / sizeof(float)))
        out.push_back({"row pass", rowPassLaunch(g)});
    out.push_back({"column pass", colPassLaunch(g)});
    const long long n0 = static_cast<long long>(g.h) + g.kh - 1, n1 = static_cast<long long>(g.w) + g.kw - 1;
    if (n0 <= 2147483647LL && n1 <= 2147483647LL)
        for (const FftCandidate& c : fftCandidates(g, static_cast<int>(n0), static_cast<int>(n1), true, true)) {
            out.push_back({"pad", padEmbedLaunch(g, c.layout, false)});
            out.push_back({"pad quads", padEmbedLaunch(g, c.layout, true)});
            out.push_back({"spectrum product", gridStrideLaunch(c.layout.specPer() * c.layout.batch(g.channels), 65535)});
        }
    out.push_back({"crop", cropLaunch(g, false)});
    out.push_back({"crop quads", cropLaunch(g, true)});
    out.push_back({"kernel scatter", scatterLaunch(g.kw, g.kh)});
    const long long values = static_cast<long long>(g.w) * g.h * g.channels;
    out.push_back({"fill", gridStrideLaunch(values, 65535)});
    out.push_back({"max difference", gridStrideLaunch(values, 4096)});
    out.push_back({"gather/scatter/non-finite", transferLaunch(values)});
    return out;
}

} // namespace

class TestGpuLaunchPlan : public QObject {
    Q_OBJECT
private slots:
    // Issue 51, defect 1: the taps uploaded for the kernel that runs are the taps it reads, for
    // every shape, device and tiled candidate; and the shapes the issue names do reach the
    // one-output-a-thread kernels (so the test covers the path that read the wrong stride).
    void theLayoutReadIsTheLayoutUploaded()
    {
        std::map<DirectKernel, int> reached;
        int unpaddedGlobal = 0;
        for (const auto& [device, optin] : kDevices)
            for (const auto& [kw, kh] : kernelShapes())
                for (const tiled::VariantRow& row : tiled::kVariants) {
                    const Geometry g = geometry(4096, 4096, 3, kw, kh);
                    const DirectPlan p = directPlanFor(g, row.grid, optin);
                    const std::vector<float> taps = distinctTaps(kw, kh);
                    const std::vector<float> uploaded = laidOutTaps(p.layout, taps.data(), kw, kh);
                    QString why;
                    QVERIFY2(readsTheTaps(p, g, uploaded, &why),
                             qPrintable(QString("%1 %2x%3 (%4, %5 kernel): %6").arg(device.c_str()).arg(kw).arg(kh)
                                            .arg(row.name, directKernelName(p.kernel), why)));
                    const std::string problem = launchProblem(p.launch, {2147483647, 65535, 65535, 1024, optin});
                    QVERIFY2(problem.empty(), problem.c_str());
                    ++reached[p.kernel];
                    if (p.kernel != DirectKernel::Tiled && kw % 4 != 0) ++unpaddedGlobal;
                }
        QVERIFY(reached[DirectKernel::Tiled] > 0);
        QVERIFY(reached[DirectKernel::Global] > 0);
        QVERIFY(reached[DirectKernel::SharedConstant] + reached[DirectKernel::SharedStaged] > 0);
        QVERIFY(unpaddedGlobal > 0);
    }

    // The cases the issue names land where it says: 1x401 on an H100/H200 and the squares 93 to
    // 127 on sm_86/89 reach the global kernel with constant memory big enough for their taps
    // (the path that read the padded buffer unpadded); 92 stays in shared memory, 68 tiled;
    // 63x63 (test_gpu's largest) is tiled from sm_80 on.
    void theIssuesShapesLeaveTheTiledKernel()
    {
        const std::size_t sm86 = kDevices.at("sm_86/89"), sm90 = kDevices.at("sm_90");
        auto kernelFor = [](int k, int kh, std::size_t optin) {
            return directPlanFor(geometry(512, 512, 1, k, kh), TiledGrid::BlockPerTile, optin).kernel;
        };
        QCOMPARE(kernelFor(1, 401, sm90), DirectKernel::Global);
        for (int k = 93; k <= 127; ++k) QCOMPARE(kernelFor(k, k, sm86), DirectKernel::Global);
        QCOMPARE(kernelFor(92, 92, sm86), DirectKernel::SharedConstant);
        QCOMPARE(kernelFor(68, 68, sm86), DirectKernel::Tiled);
        QCOMPARE(kernelFor(69, 69, sm86), DirectKernel::SharedConstant);
        for (const char* device : {"sm_80", "sm_86/89", "sm_90"}) QCOMPARE(kernelFor(63, 63, kDevices.at(device)), DirectKernel::Tiled);
        // Past constant memory the taps are staged or read from the buffer, never constant.
        const DirectPlan big = directPlanFor(geometry(512, 512, 1, 129, 129), TiledGrid::BlockPerTile, sm86);
        QVERIFY(!big.layout.constantMemory);
        QCOMPARE(big.layout.rowStride, 129);
    }

    // A candidate whose taller tile does not fit runs the default's tile, with the default's bytes.
    void aCandidateTooLargeRunsTheDefaultsTile()
    {
        const Geometry g = geometry(1024, 1024, 1, 31, 31);
        const DirectPlan tall = directPlanFor(g, TiledGrid::Tall, 64 * 1024); // sm_75: 66016 bytes for tall
        QCOMPARE(tall.kernel, DirectKernel::Tiled);
        QCOMPARE(tall.grid, TiledGrid::BlockPerTile);
        QCOMPARE(tall.shape.patchesY, 1);
        QCOMPARE(tall.launch.sharedBytes, sizeof(Vec4) * static_cast<std::size_t>(tiled::sharedVectors(tall.shape)));
        QCOMPARE(directPlanFor(g, TiledGrid::Tall, 227 * 1024).grid, TiledGrid::Tall);
    }

    // Issue 51, defect 6 and the rest: every kernel's launch within the device limits for the
    // largest images accepted (65536 a side), thin ones, tiny ones, 1 and 4 channels.
    void everyLaunchFitsTheDeviceForTheLargestImages()
    {
        const int side = kMaxImageSide;
        const std::vector<std::pair<int, int>> images = {{1, 1}, {3, 2}, {side, 8}, {8, side}, {side, side}, {7, side - 1}};
        const std::vector<std::pair<int, int>> kernels = {{1, 1}, {3, 3}, {1, 255}, {255, 1}, {63, 63}, {1, 1025}};
        for (const auto& [device, optin] : kDevices)
            for (const auto& [w, h] : images)
                for (const auto& [kw, kh] : kernels)
                    for (int channels : {1, 4}) {
                        const Geometry g = geometry(w, h, channels, kw, kh);
                        for (const auto& [name, launch] : everyLaunch(g, optin)) {
                            const std::string problem = launchProblem(launch, {2147483647, 65535, 65535, 1024, optin});
                            QVERIFY2(problem.empty(), qPrintable(QString("%1 on %2, %3x%4x%5 image, %6x%7 kernel: %8")
                                                                     .arg(name, device.c_str()).arg(w).arg(h).arg(channels)
                                                                     .arg(kw).arg(kh).arg(problem.c_str())));
                        }
                    }
    }

    // The row pass over more padded rows than grid y holds: the blocks' rows (y, y + gridDim.y,
    // ...) cover each row once; below 65536 rows one block a row, as before.
    void theRowPassCoversEveryPaddedRowOnce()
    {
        for (const auto& [h, kh] : std::vector<std::pair<int, int>>{{kMaxImageSide, 255}, {70000 - 254, 255}, {65535, 1},
                                                                    {65536, 1}, {1, 1}, {3, 7}}) {
            const Geometry g = geometry(16, h, 1, 3, kh);
            const LaunchShape l = rowPassLaunch(g);
            QVERIFY(l.grid.y <= 65535);
            const long long rows = rowPassRows(g);
            if (rows <= 65535) QCOMPARE(l.grid.y, rows);
            std::vector<int> seen(static_cast<std::size_t>(rows), 0);
            for (long long by = 0; by < l.grid.y; ++by)
                for (long long r = by; r < rows; r += l.grid.y) ++seen[static_cast<std::size_t>(r)];
            QVERIFY2(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }), qPrintable(QString::number(h)));
        }
        QVERIFY(rowPassRows(geometry(8, kMaxImageSide, 1, 1, 3)) > 65535); // the case that failed to launch
    }

    // Issue 51, defect 5: vector stores only where the output's first value is 16-byte aligned;
    // the scalar stores write the same values.
    void vectorStoresOnlyIntoAlignedOutputs()
    {
        const Geometry g4 = geometry(8, 8, 1, 3, 3), g6 = geometry(6, 8, 1, 3, 3);
        QVERIFY(tiled::vectorStoresFor(g4, 0x1000));
        for (std::uintptr_t offset : {4u, 8u, 12u}) QVERIFY(!tiled::vectorStoresFor(g4, 0x1000 + offset));
        QVERIFY(!tiled::vectorStoresFor(g6, 0x1000));
        alignas(16) float buffer[1 + 8 * 8 + 3] = {};
        float acc[tiled::kOutY][tiled::kOutX];
        for (int r = 0; r < tiled::kOutY; ++r)
            for (int c = 0; c < tiled::kOutX; ++c) acc[r][c] = static_cast<float>(10 * r + c);
        float* out = buffer + 1; // output= offset by 4 bytes
        const bool vectors = tiled::vectorStoresFor(g4, reinterpret_cast<std::uintptr_t>(out));
        QVERIFY(!vectors);
        tiled::storePatch(out, g4, vectors, 0, 0, 1, 0, acc); // thread 1: columns 4..7
        for (int r = 0; r < tiled::kOutY; ++r)
            for (int c = 0; c < tiled::kOutX; ++c) QCOMPARE(out[r * 8 + 4 + c], acc[r][c]);
        QCOMPARE(buffer[0], 0.0f);
        QCOMPARE(out[3], 0.0f); // nothing outside the patch
    }
};

QTEST_GUILESS_MAIN(TestGpuLaunchPlan)
#include "test_gpu_launchplan.moc"
