// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel estimation from an image pair (docs/semantics.md, Kernel estimation). Every output
// that counts is one equation: its footprint (the w*h source samples the correlation-form
// kernel multiplies) dotted with the kernel should give the filtered value. The normal
// equations G k = b are (w*h) x (w*h) and come from correlations of the images: the Gram
// matrix G holds shifted autocorrelations of the source over the fitting region, b the
// cross-correlation of source and filtered image. Then a pivoted LDLT of the Jacobi-scaled G
// solves them and says when they are singular.
#include "convlab/estimate.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "convlab/error.h"
#include "convlab/probe.h"
#include "engine/threadpool.h"

namespace convlab {
namespace {

// A scaled LDLT pivot below this (relative to the largest, 1 after scaling) means the taps are
// linearly dependent on the source: rounding leaves about n * 1e-16 there, a real image's
// smallest pivots are many orders above it.
constexpr double kSingularPivot = 1e-10;

std::string sizeText(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

std::string channelText(int c) { return std::to_string(c) + (c == 1 ? " channel" : " channels"); }

// The samples one channel's equations read. Output (oy, ox), 0 <= oy < outH, 0 <= ox < outW,
// multiplies tap (v, u) of the correlation-form kernel with window(oy + v, ox + u), and should
// give target(oy, ox).
struct Fit {
    const float* window = nullptr; // window(0, 0); rows windowStride apart
    std::size_t windowStride = 0;
    const float* target = nullptr; // target(0, 0); rows targetStride apart
    std::size_t targetStride = 0;
};

// The region and kernel shared by every channel's Fit.
struct Shape {
    int w = 0, h = 0;       // kernel
    int outW = 0, outH = 0; // outputs that count
    int n() const { return w * h; }
    // The window's extent: the outputs plus the kernel's reach.
    int windowW() const { return outW + w - 1; }
    int windowH() const { return outH + h - 1; }
};

void throwIfCancelled(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
}

// Sum of a[i] * b[i] in double; four accumulators so the additions do not wait on each other.
double dot(const float* a, const float* b, int n)
{
    double s[4] = {0, 0, 0, 0};
    int i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; ++k) s[k] += double(a[i + k]) * double(b[i + k]);
    for (; i < n; ++i) s[0] += double(a[i]) * double(b[i]);
    return (s[0] + s[1]) + (s[2] + s[3]);
}

// The Gram entries of one shift (dv, du), dv >= 0: G(j1, j2) for every pair of taps
// j1 = (v1, u1), j2 = (v1 + dv, u1 + du). Each is the sum over the outputs of
// window(oy + v1, ox + u1) * window(oy + v1 + dv, ox + u1 + du): the same product image summed
// over rectangles that differ only by where they start. So each window row's products are
// summed once over the union of the rectangles' columns, the few columns outside one rectangle
// are taken off, and prefix sums down the rows give every rectangle's sum: O(window pixels)
// per shift instead of per entry.
void addShift(const Shape& s, const Fit& f, int dv, int du, Eigen::MatrixXd& gram)
{
    const int ua = std::max(0, -du), ub = std::min(s.w, s.w - du); // u1 in [ua, ub)
    const int columns = ub - ua;
    const int unionEnd = ub - 1 + s.outW; // rectangle u1 covers [u1, u1 + outW) of [ua, unionEnd)
    const int rows = s.windowH() - dv;
    // prefix[c * (rows + 1) + p]: the sum of rectangle column range ua + c over window rows < p.
    std::vector<double> prefix(static_cast<std::size_t>(columns) * (rows + 1), 0.0);
    std::vector<double> left(columns), right(columns);
    for (int p = 0; p < rows; ++p) {
        // a[i] = window(p, ua + i), b[i] = window(p + dv, ua + i + du): column ua + i of the union.
        const float* a = f.window + static_cast<std::size_t>(p) * f.windowStride + ua;
        const float* b = f.window + static_cast<std::size_t>(p + dv) * f.windowStride + (ua + du);
        const double total = dot(a, b, unionEnd - ua);
        // left[c]: the c columns left of rectangle ua + c; right[c]: the columns right of it.
        double acc = 0.0;
        for (int c = 0; c < columns; ++c) {
            left[c] = acc;
            acc += double(a[c]) * double(b[c]);
        }
        acc = 0.0;
        for (int c = columns - 1; c >= 0; --c) {
            const int i = c + s.outW;
            if (ua + i < unionEnd) acc += double(a[i]) * double(b[i]);
            right[c] = acc;
        }
        for (int c = 0; c < columns; ++c) {
            double* col = prefix.data() + static_cast<std::size_t>(c) * (rows + 1);
            col[p + 1] = col[p] + (total - left[c] - right[c]);
        }
    }
    for (int c = 0; c < columns; ++c) {
        const double* col = prefix.data() + static_cast<std::size_t>(c) * (rows + 1);
        const int u1 = ua + c;
        for (int v1 = 0; v1 + dv < s.h; ++v1) {
            const double sum = col[v1 + s.outH] - col[v1];
            const int j1 = v1 * s.w + u1, j2 = (v1 + dv) * s.w + u1 + du;
            gram(j1, j2) += sum;
            if (j1 != j2) gram(j2, j1) += sum;
        }
    }
}

// The shifts (dv, du) whose entries fill G once: dv > 0 with any du, dv = 0 with du >= 0 (the
// rest are the transposed entries).
std::vector<std::pair<int, int>> gramShifts(const Shape& s)
{
    std::vector<std::pair<int, int>> shifts;
    for (int dv = 0; dv < s.h; ++dv)
        for (int du = dv == 0 ? 0 : 1 - s.w; du < s.w; ++du) shifts.emplace_back(dv, du);
    return shifts;
}

// Adds one channel's normal equations: G += A^T A, b += A^T f.
void addNormalEquations(const Shape& s, const Fit& f, int threads, const std::atomic<bool>* cancel,
                        Eigen::MatrixXd& gram, Eigen::VectorXd& rhs)
{
    // Each shift writes its own entries of G, so shifts run in parallel without locks.
    const std::vector<std::pair<int, int>> shifts = gramShifts(s);
    detail::parallelFor(int(shifts.size()), threads, [&](int begin, int end) {
        for (int i = begin; i < end; ++i) {
            throwIfCancelled(cancel);
            addShift(s, f, shifts[i].first, shifts[i].second, gram);
        }
    });
    // b_j = sum over outputs of window(oy + v, ox + u) * target(oy, ox), one tap per chunk item.
    detail::parallelFor(s.n(), threads, [&](int begin, int end) {
        for (int j = begin; j < end; ++j) {
            throwIfCancelled(cancel);
            const int v = j / s.w, u = j % s.w;
            double sum = 0.0;
            for (int oy = 0; oy < s.outH; ++oy)
                sum += dot(f.window + static_cast<std::size_t>(oy + v) * f.windowStride + u,
                           f.target + static_cast<std::size_t>(oy) * f.targetStride, s.outW);
            rhs(j) += sum;
        }
    });
}

// Sum of squared residuals of the correlation-form kernel `k` over one channel's equations.
double squaredResidual(const Shape& s, const Fit& f, const Eigen::VectorXd& k, int threads,
                       const std::atomic<bool>* cancel)
{
    std::vector<double> partial(std::max(1, s.outH), 0.0);
    detail::parallelFor(s.outH, threads, [&](int begin, int end) {
        std::vector<double> r(s.outW);
        for (int oy = begin; oy < end; ++oy) {
            throwIfCancelled(cancel);
            const float* t = f.target + static_cast<std::size_t>(oy) * f.targetStride;
            for (int ox = 0; ox < s.outW; ++ox) r[ox] = -double(t[ox]);
            for (int j = 0; j < s.n(); ++j) {
                const float* in = f.window + static_cast<std::size_t>(oy + j / s.w) * f.windowStride + j % s.w;
                const double kj = k(j);
                for (int ox = 0; ox < s.outW; ++ox) r[ox] += kj * double(in[ox]);
            }
            double sum = 0.0;
            for (double e : r) sum += e * e;
            partial[oy] = sum;
        }
    });
    double total = 0.0;
    for (double p : partial) total += p;
    return total;
}

void validateOptions(const EstimateOptions& o)
{
    if (o.width < 1 || o.height < 1 || o.width > kMaxEstimateSide || o.height > kMaxEstimateSide)
        throw Error("kernel size " + sizeText(o.width, o.height) + " is outside 1x1.." +
                    sizeText(kMaxEstimateSide, kMaxEstimateSide) + " (the largest kernel an estimate solves for)");
    const int ax = o.anchorX >= 0 ? o.anchorX : o.width / 2, ay = o.anchorY >= 0 ? o.anchorY : o.height / 2;
    if (ax >= o.width || ay >= o.height)
        throw Error("anchor (" + std::to_string(ax) + ", " + std::to_string(ay) + ") is outside the " +
                    sizeText(o.width, o.height) + " kernel");
    if (!std::isfinite(o.ridge) || o.ridge < 0)
        throw Error("ridge " + std::to_string(o.ridge) + " must be a finite number >= 0");
    if (o.border && !std::isfinite(o.border->value))
        throw Error("border constant " + std::to_string(o.border->value) + " is not finite");
}

// The first non-finite sample of the fitted channels, named.
void requireFinite(const Image& img, int channels, const char* which)
{
    for (int c = 0; c < channels; ++c) {
        const float* p = img.plane(c);
        for (std::size_t i = 0; i < img.planeSize(); ++i)
            if (!std::isfinite(p[i]))
                throw Error(std::string("the ") + which + " image has a non-finite value at (" +
                            std::to_string(i % img.width) + ", " + std::to_string(i / img.width) + "), channel " +
                            std::to_string(c) + ": an estimate needs finite samples");
    }
}

void validatePair(const Image& source, const Image& filtered, const EstimateOptions& o)
{
    const auto describe = [](const Image& i) { return sizeText(i.width, i.height) + ", " + channelText(i.channels); };
    if (source.empty() || filtered.empty()) throw Error("kernel estimate: the source or the filtered image is empty");
    if (!source.sameShape(filtered))
        throw Error("the filtered image (" + describe(filtered) + ") does not match the source (" + describe(source) +
                    "): the pair must have the same size and channels");
    if (source.width < o.width || source.height < o.height)
        throw Error("the image (" + sizeText(source.width, source.height) + ") is smaller than the " +
                    sizeText(o.width, o.height) + " kernel");
}

// Solves (G + mu I) k = b, mu = ridge * trace(G) / n, on the Jacobi-scaled system so that the
// pivot test does not depend on the values' scale. Throws for a singular system.
Eigen::VectorXd solveNormalEquations(Eigen::MatrixXd gram, Eigen::VectorXd rhs, double ridge, int w, int h)
{
    const Eigen::Index n = gram.rows();
    const double mu = ridge * gram.trace() / double(n);
    gram.diagonal().array() += mu;
    const std::string singular = "the source image has too little structure to determine a " + sizeText(w, h) +
                                 " kernel (the system is singular): use a smaller kernel, a more detailed image "
                                 "or a ridge";
    Eigen::VectorXd scale(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        if (!(gram(i, i) > 0)) throw Error(singular); // a tap that only ever reads zeros
        scale(i) = 1.0 / std::sqrt(gram(i, i));
    }
    const Eigen::MatrixXd scaled = scale.asDiagonal() * gram * scale.asDiagonal();
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(scaled);
    const Eigen::VectorXd pivots = ldlt.vectorD();
    if (ldlt.info() != Eigen::Success || !(pivots.minCoeff() > kSingularPivot * pivots.cwiseAbs().maxCoeff()))
        throw Error(singular);
    Eigen::VectorXd k = scale.asDiagonal() * ldlt.solve(scale.asDiagonal() * rhs);
    if (!k.allFinite()) throw Error(singular);
    return k;
}

} // namespace

KernelEstimate estimateKernel(const Image& source, const Image& filtered, const EstimateOptions& o)
{
    validateOptions(o);
    validatePair(source, filtered, o);
    const int channels =
        source.hasAlpha && !o.filterAlpha && source.channels > 1 ? source.channels - 1 : source.channels;
    requireFinite(source, channels, "source");
    requireFinite(filtered, channels, "filtered");

    // Everything below works on the correlation-form kernel and anchor (docs/semantics.md,
    // Convolution and correlation); the result is turned back at the end.
    Kernel asked(o.width, o.height, std::vector<float>(static_cast<std::size_t>(o.width) * o.height, 0.0f));
    asked.anchorX = o.anchorX;
    asked.anchorY = o.anchorY;
    const Kernel form = correlationKernel(asked, o.semantics);

    Shape s;
    s.w = o.width;
    s.h = o.height;
    // Interior: outputs (y, x) with every tap inside; output (oy, ox) is pixel (oy + ay, ox + ax)
    // and its window starts at the image's corner. With a border: every pixel, and the window
    // starts ay rows above and ax columns left of the image in the padded copy.
    Image padded;
    int windowX = 0, windowY = 0, targetX = form.ax(), targetY = form.ay();
    if (o.border) {
        const int margin = std::max(o.width, o.height) - 1;
        padded = padPreview(source, *o.border, margin);
        s.outW = source.width;
        s.outH = source.height;
        windowX = margin - form.ax();
        windowY = margin - form.ay();
        targetX = targetY = 0;
    } else {
        s.outW = source.width - o.width + 1;
        s.outH = source.height - o.height + 1;
    }
    const Image& window = o.border ? padded : source;
    const std::size_t outputs = static_cast<std::size_t>(s.outW) * s.outH;
    const std::size_t equations = outputs * channels;
    if (o.ridge == 0 && equations < static_cast<std::size_t>(s.n()))
        throw Error("the " + std::string(o.border ? "image" : "interior") + " gives " + std::to_string(equations) +
                    " equations for the " + std::to_string(s.n()) + " values of a " + sizeText(s.w, s.h) +
                    " kernel: use a larger image, a smaller kernel, a border mode or a ridge");

    const auto fitOf = [&](int c) {
        Fit f;
        f.windowStride = static_cast<std::size_t>(window.width);
        f.window = window.plane(c) + static_cast<std::size_t>(windowY) * f.windowStride + windowX;
        f.targetStride = static_cast<std::size_t>(filtered.width);
        f.target = filtered.plane(c) + static_cast<std::size_t>(targetY) * f.targetStride + targetX;
        return f;
    };
    Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(s.n(), s.n());
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(s.n());
    for (int c = 0; c < channels; ++c) addNormalEquations(s, fitOf(c), o.threads, o.cancel, gram, rhs);
    throwIfCancelled(o.cancel);
    const Eigen::VectorXd k = solveNormalEquations(std::move(gram), std::move(rhs), o.ridge, s.w, s.h);

    Kernel estimated = form;
    for (int j = 0; j < s.n(); ++j) estimated.values[j] = static_cast<float>(k(j));
    // The residual of the kernel as reported (float), which is what applying it gives.
    const Eigen::VectorXd applied = Eigen::Map<const Eigen::VectorXf>(estimated.values.data(), s.n()).cast<double>();
    double squared = 0.0;
    for (int c = 0; c < channels; ++c) squared += squaredResidual(s, fitOf(c), applied, o.threads, o.cancel);
    // Flipping back is the same flip (an involution), anchor included.
    KernelEstimate out;
    out.kernel = correlationKernel(estimated, o.semantics);
    out.kernel.anchorX = o.anchorX;
    out.kernel.anchorY = o.anchorY;
    out.kernel.name = "estimated";
    out.residualRmse = std::sqrt(squared / double(equations));
    out.equations = equations;
    out.channels = channels;
    return out;
}

} // namespace convlab
