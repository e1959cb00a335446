// SPDX-License-Identifier: GPL-3.0-or-later
// Separable method: the kernel's SVD K = sum_i s_i u_i v_i^T gives `rank` pairs of a vertical
// and a horizontal 1-D filter. Each pair is a row pass over the padded plane followed by a
// column pass; the pairs' results add up to the full 2-D correlation.
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <vector>

#include "convlab/error.h"
#include "methods.h"
#include "rowcache.h"
#include "rowkernels.h"
#include "threadpool.h"

namespace convlab::detail {

SeparableFactors separableFactors(const Kernel& k)
{
    Eigen::MatrixXd m(k.height, k.width);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) m(v, u) = k.at(v, u);
    SeparableFactors f;
    Eigen::BDCSVD<Eigen::MatrixXd> svd(m, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Eigen::VectorXd& s = svd.singularValues();
    f.singularValues.assign(s.data(), s.data() + s.size());
    // Keep every component that float arithmetic can still see: what is dropped stays below
    // float precision relative to the largest component.
    const double keep = s.size() ? s(0) * 1e-7 : 0.0;
    for (int i = 0; i < s.size(); ++i) {
        if (!(s(i) > keep)) break;
        const double r = std::sqrt(s(i));
        std::vector<float> col(k.height), row(k.width);
        for (int v = 0; v < k.height; ++v) col[v] = static_cast<float>(svd.matrixU()(v, i) * r);
        for (int u = 0; u < k.width; ++u) row[u] = static_cast<float>(svd.matrixV()(u, i) * r);
        f.columns.push_back(std::move(col));
        f.rows.push_back(std::move(row));
        ++f.rank;
    }
    return f;
}

void runSeparable(const Job& job, Image& out, StageClock& clock)
{
    if (!job.factors) throw Error("the separable method needs the kernel's factors");
    const SeparableFactors& f = *job.factors;
    const Kernel& k = job.kernel;
    const int w = job.width, h = job.height, kh = k.height;
    const int left = k.ax(), right = k.width - 1 - k.ax(), top = k.ay();
    const float offset = static_cast<float>(job.offset);
    const RowKernels& rk = rowKernels();
    if (f.rank == 0) {
        // An all-zero kernel: no pass pair writes anything, so the output (possibly a reused
        // buffer holding an older result) is set to what the sum gives: the offset.
        for (int c = 0; c < job.channels; ++c) std::fill(out.plane(c), out.plane(c) + out.planeSize(), offset);
        clock.mark("convolve");
        return;
    }
    // The scale is folded into the vertical factors.
    std::vector<std::vector<float>> columns = f.columns;
    for (auto& col : columns)
        for (float& c : col) c = static_cast<float>(c * job.scale);

    parallelFor(h, job.threads, [&](int y0, int y1) {
        // Horizontal results of the last kh padded rows, per rank: rank x kh rows of w values.
        PaddedRows rows(w, h, job.border, top, left, right, 1);
        std::vector<float> ring(static_cast<std::size_t>(f.rank) * kh * w);
        std::vector<const float*> window(kh);
        auto ringRow = [&](int i, int r) {
            return ring.data() + (static_cast<std::size_t>(i) * kh + r % kh) * w;
        };
        for (int c = 0; c < job.channels; ++c) {
            rows.reset(job.in, job.packed, c);
            float* dst = out.plane(c);
            for (int r = y0; r < y1 + kh - 1; ++r) {
                if ((r & 15) == 0) job.checkCancel();
                const float* padded = rows.row(r);
                for (int i = 0; i < f.rank; ++i) rk.filterRow(padded, f.rows[i].data(), k.width, w, ringRow(i, r));
                const int y = r - (kh - 1);
                if (y < y0) continue;
                float* o = dst + static_cast<std::size_t>(y) * w;
                for (int i = 0; i < f.rank; ++i) {
                    for (int v = 0; v < kh; ++v) window[v] = ringRow(i, y + v);
                    rk.combineRows(window.data(), columns[i].data(), kh, w, o, i > 0);
                }
                if (offset != 0.0f) rk.scaleOffset(o, w, 1.0f, offset, o);
            }
        }
    });
    clock.mark("convolve");
}

namespace {

// Every pass pair moves the values once more and costs a row and a column of taps per value.
CostTerms separableTerms(const RunShape& s)
{
    const double passes = double(std::max(s.rank, 1)) * s.width * s.height * s.channels;
    return {passes, passes * (s.kernel->width + s.kernel->height), std::max(1, std::min(s.threads, s.height))};
}

// Rank 1 with 3+3 and 31+31 taps.
MethodCost calibrateSeparable(const CostModel&)
{
    StageClock clock(nullptr);
    Image& out = calibrationOutput();
    Job s3 = calibrationJob(3, 3), s31 = calibrationJob(31, 31);
    const SeparableFactors f3 = separableFactors(s3.kernel), f31 = separableFactors(s31.kernel);
    s3.factors = &f3;
    s31.factors = &f31;
    const double px = calibrationValues();
    const double t3 = bestOfNs(3, [&] { runSeparable(s3, out, clock); }) / px;
    const double t31 = bestOfNs(3, [&] { runSeparable(s31, out, clock); }) / px;
    MethodCost c;
    c.perWorkNs = std::max((t31 - t3) / (62 - 6), 1e-3);
    c.perValueNs = std::max(t3 - 6 * c.perWorkNs, 0.0);
    return c;
}

} // namespace

const MethodEngine kSeparableEngine{true, true, runSeparable, separableTerms, calibrateSeparable};

} // namespace convlab::detail
