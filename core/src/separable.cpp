// SPDX-License-Identifier: GPL-3.0-or-later
// Separable method: the kernel's SVD K = sum_i s_i u_i v_i^T gives `rank` pairs of a vertical
// and a horizontal 1-D filter. Each pair is a row pass over the padded plane followed by a
// column pass; the pairs' results add up to the full 2-D correlation.
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <vector>

#include "methods.h"
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

void runSeparable(const Job& job, const SeparableFactors& f, Image& out, StageClock& clock)
{
    const Image& in = *job.in;
    const Kernel& k = job.kernel;
    const int w = in.width, h = in.height;
    const int left = k.ax(), right = k.width - 1 - k.ax();
    const int top = k.ay(), bottom = k.height - 1 - k.ay();
    const int pw = w + left + right, ph = h + top + bottom;
    const float scale = static_cast<float>(job.scale), offset = static_cast<float>(job.offset);

    std::vector<float> padded(static_cast<std::size_t>(pw) * ph);
    std::vector<float> rowPass(static_cast<std::size_t>(w) * ph);
    std::vector<float> sum(static_cast<std::size_t>(w) * h);
    for (int c = 0; c < job.channels; ++c) {
        job.checkCancel();
        padPlane(in.plane(c), w, h, job.border, top, bottom, left, right, padded.data());
        clock.mark("pad");
        std::fill(sum.begin(), sum.end(), 0.0f);
        for (int i = 0; i < f.rank; ++i) {
            const std::vector<float>& rk = f.rows[i];
            parallelFor(ph, job.threads, [&](int y0, int y1) {
                job.checkCancel();
                for (int y = y0; y < y1; ++y) {
                    const float* p = padded.data() + static_cast<std::size_t>(y) * pw;
                    float* r = rowPass.data() + static_cast<std::size_t>(y) * w;
                    std::fill(r, r + w, 0.0f);
                    for (int u = 0; u < k.width; ++u) {
                        const float kv = rk[u];
                        const float* s = p + u;
                        for (int x = 0; x < w; ++x) r[x] += kv * s[x];
                    }
                }
            });
            const std::vector<float>& ck = f.columns[i];
            parallelFor(h, job.threads, [&](int y0, int y1) {
                job.checkCancel();
                for (int y = y0; y < y1; ++y) {
                    float* o = sum.data() + static_cast<std::size_t>(y) * w;
                    for (int v = 0; v < k.height; ++v) {
                        const float kv = ck[v];
                        const float* s = rowPass.data() + static_cast<std::size_t>(y + v) * w;
                        for (int x = 0; x < w; ++x) o[x] += kv * s[x];
                    }
                }
            });
        }
        float* dst = out.plane(c);
        for (std::size_t j = 0; j < sum.size(); ++j) dst[j] = scale * sum[j] + offset;
        clock.mark("convolve");
    }
}

} // namespace convlab::detail
