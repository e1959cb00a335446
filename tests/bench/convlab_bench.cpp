// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-bench: times the engine's CPU methods against OpenCV's cv::filter2D and
// cv::sepFilter2D in one process, on the same data, and checks on every case that both sides
// compute the same thing (a benchmark of different maths is worthless). The engine runs in
// correlation semantics, which is what filter2D computes.
//
// Inputs are reproducible outside this program: pixel i of the planar float data (plane by
// plane, row-major) is unit(kImageSeed, i) and dense kernels are 2*unit(N, i) - 1, with
// unit() the SplitMix64 hash below; peers.py regenerates them in numpy.
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <emmintrin.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "opencv_border.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"

using namespace convlab;
using Clock = std::chrono::steady_clock;

namespace {

constexpr std::uint64_t kImageSeed = 1;
constexpr double kAgreeTol = 1e-4; // relative to sum|K| * max|in|

// ---- reproducible data ----

std::uint64_t splitmix(std::uint64_t seed, std::uint64_t i)
{
    std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// Uniform in [0, 1), exactly representable in float32.
float unit(std::uint64_t seed, std::uint64_t i) { return static_cast<float>(splitmix(seed, i) >> 40) * 0x1p-24f; }

Image randomImage(int w, int h, int channels)
{
    Image img(w, h, channels);
    for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = unit(kImageSeed, i);
    return img;
}

// ---- kernels by bench name ----

int sideOf(const std::string& name, const std::string& prefix)
{
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 4 || !std::all_of(digits.begin(), digits.end(), ::isdigit))
        throw Error("kernel '" + name + "': expected " + prefix + "N with N an odd side, e.g. " + prefix + "11");
    const int n = std::stoi(digits);
    if (n < 1 || n % 2 == 0 || n > kMaxKernelSide)
        throw Error("kernel '" + name + "': side " + digits + " must be odd and within 1.." +
                    std::to_string(kMaxKernelSide));
    return n;
}

// edge8, sobel, gaussianN (sigma max(1, (N-1)/6)), denseN (uniform in [-1, 1), seed N),
// diskN (radius (N-1)/2). All odd-sided, default anchor.
Kernel benchKernel(const std::string& name)
{
    Kernel k;
    if (name == "edge8") {
        k = parseKernelText("1 1 1; 1 -8 1; 1 1 1");
    } else if (name == "sobel") {
        k = parseKernelText("1 0 -1; 2 0 -2; 1 0 -1"); // [1 2 1]^T x [1 0 -1]
    } else if (name.starts_with("gaussian")) {
        const int n = sideOf(name, "gaussian");
        const double sigma = std::max(1.0, (n - 1) / 6.0);
        k = makePreset("gaussian", "size=" + std::to_string(n) + ",sigma=" + std::to_string(sigma));
    } else if (name.starts_with("dense")) {
        const int n = sideOf(name, "dense");
        std::vector<float> v(static_cast<std::size_t>(n) * n);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = 2.0f * unit(static_cast<std::uint64_t>(n), i) - 1.0f;
        k = Kernel(n, n, std::move(v));
    } else if (name.starts_with("disk")) {
        const int n = sideOf(name, "disk");
        k = makePreset("disk", "radius=" + std::to_string((n - 1) / 2.0));
        if (k.width != n) throw Error("kernel '" + name + "': the disk preset gave side " + std::to_string(k.width));
    } else {
        throw Error("unknown kernel '" + name + "' (use edge8, sobel, gaussianN, denseN, diskN)");
    }
    k.name = name;
    return k;
}

// ---- OpenCV side ----


// OpenCV's filters apply most border types themselves (the table of convlab/modes.h says which:
// `opencvFilter2D`), with a constant of 0 only. The others, and non-zero constants, are padded
// first with copyMakeBorder (timed as part of OpenCV's cost); the filter then runs on the padded
// image's inner window, reading the padding through the window's parent matrix.
struct CvFilter {
    enum Kind { Filter2D, SepFilter2D } kind = Filter2D;
    cv::Mat kernel;      // Filter2D
    cv::Mat kx, ky;      // SepFilter2D: row (1 x w) and column (h x 1) factors
    cv::Point anchor;
    Border border;
    cv::Mat padded, dst; // reused across runs, as an application would

    bool needsPadding() const
    {
        const BorderModeInfo& info = borderModeInfo(border.mode);
        return !info.opencvFilter2D || (info.takesValue && border.value != 0.0f);
    }

    void run(const cv::Mat& src)
    {
        cv::Mat in = src;
        int type = convlab::test::cvBorderType(border.mode);
        if (needsPadding()) {
            const int kw = kind == Filter2D ? kernel.cols : kx.cols, kh = kind == Filter2D ? kernel.rows : ky.rows;
            cv::copyMakeBorder(src, padded, anchor.y, kh - 1 - anchor.y, anchor.x, kw - 1 - anchor.x, type,
                               cv::Scalar::all(border.value));
            in = padded(cv::Rect(anchor.x, anchor.y, src.cols, src.rows));
            type = cv::BORDER_REPLICATE; // never used: the window's neighbourhood lies in `padded`
        }
        if (kind == Filter2D)
            cv::filter2D(in, dst, CV_32F, kernel, anchor, 0.0, type);
        else
            cv::sepFilter2D(in, dst, CV_32F, kx, ky, anchor, 0.0, type);
    }
};

cv::Mat kernelMat(const Kernel& k)
{
    cv::Mat m(k.height, k.width, CV_32F);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) m.at<float>(v, u) = k.at(v, u);
    return m;
}

// Factors of a rank-1 kernel: K(v,u) = ky(v) * kx(u), from the row and column through the
// largest element (exact for a rank-1 matrix).
void rankOneFactors(const Kernel& k, cv::Mat& kx, cv::Mat& ky)
{
    const auto it = std::max_element(k.values.begin(), k.values.end(),
                                     [](float a, float b) { return std::fabs(a) < std::fabs(b); });
    const int idx = static_cast<int>(it - k.values.begin());
    const int v0 = idx / k.width, u0 = idx % k.width;
    kx.create(1, k.width, CV_32F);
    ky.create(k.height, 1, CV_32F);
    for (int u = 0; u < k.width; ++u) kx.at<float>(0, u) = k.at(v0, u) / *it;
    for (int v = 0; v < k.height; ++v) ky.at<float>(v, 0) = k.at(v, u0);
}

// Planar image <-> OpenCV's interleaved layout (done outside the timed region).
cv::Mat toCv(const Image& img)
{
    std::vector<cv::Mat> planes;
    for (int c = 0; c < img.channels; ++c)
        planes.emplace_back(img.height, img.width, CV_32F, const_cast<float*>(img.plane(c)));
    cv::Mat out;
    cv::merge(planes, out);
    return out;
}

Image fromCv(const cv::Mat& m)
{
    Image img(m.cols, m.rows, m.channels());
    std::vector<cv::Mat> planes;
    for (int c = 0; c < img.channels; ++c) planes.emplace_back(img.height, img.width, CV_32F, img.plane(c));
    cv::split(m, planes);
    return img;
}

// ---- measurement ----

double medianOf(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One thread's part of a copy whose stores go past the caches (as the methods write outputs
// larger than the last-level cache): SSE2, so it runs on any x86-64; 16-byte aligned ends.
void streamingCopy(const float* src, float* dst, std::size_t n)
{
#if defined(__SSE2__)
    for (std::size_t i = 0; i + 4 <= n; i += 4) _mm_stream_ps(dst + i, _mm_load_ps(src + i));
    _mm_sfence();
#else
    std::memcpy(dst, src, n * sizeof(float));
#endif
}

// Copy bandwidth in bytes/s (read + write) of n floats on `threads` threads: the best of
// `rounds` copies by memcpy and as many by streaming stores, each thread copying its share.
// Whichever is faster is the limit a method that reads its input once and writes its output
// once can reach (glibc's memcpy ran about 30% below the streaming copy on one thread of the
// AMD EPYC in results/).
double copyBandwidth(int threads, std::size_t n = std::size_t(64) << 20, int rounds = 5)
{
    std::vector<float> a(n, 1.0f), b(n, 0.0f);
    const std::size_t share = (n / threads) & ~std::size_t(15);
    const auto copyWith = [&](auto&& copyPart) {
        const auto t0 = Clock::now();
        std::vector<std::thread> pool;
        for (int t = 1; t < threads; ++t)
            pool.emplace_back([&, t] { copyPart(a.data() + t * share, b.data() + t * share, t + 1 < threads ? share : n - t * share); });
        copyPart(a.data(), b.data(), threads > 1 ? share : n);
        for (std::thread& t : pool) t.join();
        return std::chrono::duration<double>(Clock::now() - t0).count();
    };
    double best = 1e30;
    for (int i = 0; i < rounds; ++i) {
        best = std::min(best, copyWith([](const float* s, float* d, std::size_t m) { std::memcpy(d, s, m * sizeof(float)); }));
        best = std::min(best, copyWith(streamingCopy));
        a[i % n] = b[n - 1 - i % n]; // keep the copies observable
    }
    return 2.0 * n * sizeof(float) / best;
}

// Resets the peak resident set size (Linux: "5" into /proc/self/clear_refs), so that the
// peak reported at the end is the benchmark's, not the bandwidth probe's.
bool resetPeakRss()
{
    std::ofstream f("/proc/self/clear_refs");
    return static_cast<bool>(f << "5" << std::flush);
}

template <class F> std::vector<double> timeRuns(int runs, F&& fn)
{
    fn(); // warm-up: plans, caches, page faults
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = Clock::now();
        fn();
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    return ms;
}

double relativeDiff(const Image& a, const Image& b, double scale)
{
    double worst = 0.0;
    for (std::size_t i = 0; i < a.data.size(); ++i)
        worst = std::max(worst, std::fabs(double(a.data[i]) - double(b.data[i])));
    return scale > 0.0 ? worst / scale : worst;
}

// The border as parseBorder reads it back: "constant:0.5" keeps its value.
std::string borderText(const Border& b)
{
    std::string s = borderName(b.mode);
    if (borderModeInfo(b.mode).takesValue && b.value != 0.0f) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, b.value);
        s += ":" + std::string(buf, r.ptr);
    }
    return s;
}

// ---- options ----

std::vector<std::string> withOpenCv(std::vector<std::string> ours)
{
    ours.insert(ours.end(), {"filter2d", "sepfilter2d"});
    return ours;
}

// The table's border mode names, "a, b, c".
std::string borderModeNames()
{
    std::string out;
    for (const BorderModeInfo& m : borderModes()) out += (out.empty() ? "" : ", ") + std::string(m.name);
    return out;
}

// Every method of the table but the oracle, those auto weighs first (each one's output is
// compared with OpenCV's, and the first is the reference for OpenCV's rows), auto after them.
std::vector<std::string> benchedMethods()
{
    std::vector<std::string> out;
    for (bool candidates : {true, false})
        for (const MethodInfo& m : methods())
            if (m.autoCandidate == candidates && m.accuracy != Accuracy::Oracle) out.emplace_back(m.name);
    return out;
}

struct Options {
    std::vector<std::string> sizes{"512x512", "1920x1080", "4096x4096", "4099x4097"};
    std::vector<std::string> kernels{"edge8",   "sobel",   "gaussian5", "dense7",     "dense11",
                                     "dense13", "dense21", "dense31",   "gaussian31", "disk63"};
    std::vector<std::string> borders{"replicate", "mirror", "wrap"};
    std::vector<int> channels{1, 3};
    std::vector<int> threads{1, 2};
    std::vector<std::string> methods = withOpenCv(benchedMethods());
    int runs = 5;
    std::string json;
    std::string dumpDir;
};

std::pair<int, int> parseSize(const std::string& s)
{
    int w = 0, h = 0;
    char x = 0, extra = 0;
    std::istringstream in(s);
    if (!(in >> w >> x >> h) || (x != 'x' && x != 'X') || (in >> extra) || w < 1 || h < 1 || w > kMaxImageSide ||
        h > kMaxImageSide)
        throw Error("bad size '" + s + "': expected WxH with sides 1.." + std::to_string(kMaxImageSide));
    return {w, h};
}

struct Row {
    std::string method; // as printed: direct, ..., auto(fft), cv::filter2D, cv::sepFilter2D
    bool ours = true;
    std::vector<double> ms;
    Image out;
    std::optional<double> diff; // against the other side's reference output
    std::string reason;         // auto's choice
};

std::string fmt(const char* f, double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

void writeJsonFile(const std::string& path, const nlohmann::json& doc)
{
    writeAtomically(path, [&](const std::string& tmp) {
        std::ofstream f(tmp, std::ios::binary);
        f << doc.dump(1) << '\n';
        if (!f.flush()) throw Error("cannot write " + tmp);
    });
}

std::string cpuModel()
{
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line))
        if (line.starts_with("model name")) {
            const auto p = line.find(':');
            if (p != std::string::npos) return line.substr(line.find_first_not_of(' ', p + 1));
        }
    return "unknown";
}

// Output values at the corners, edge midpoints, centre and a few hashed positions: a compact
// fingerprint another program can compare against without the whole image.
nlohmann::json probes(const Image& out)
{
    std::vector<std::pair<int, int>> pts = {{0, 0},
                                            {0, out.width - 1},
                                            {out.height - 1, 0},
                                            {out.height - 1, out.width - 1},
                                            {0, out.width / 2},
                                            {out.height / 2, 0},
                                            {out.height - 1, out.width / 2},
                                            {out.height / 2, out.width - 1},
                                            {out.height / 2, out.width / 2}};
    for (std::uint64_t i = 0; i < 16; ++i)
        pts.emplace_back(int(splitmix(7, 2 * i) % out.height), int(splitmix(7, 2 * i + 1) % out.width));
    nlohmann::json arr = nlohmann::json::array();
    for (int c = 0; c < out.channels; ++c)
        for (auto [y, x] : pts) arr.push_back({c, y, x, out.at(c, y, x)});
    return arr;
}

struct Selection {
    std::vector<Method> ours;
    bool filter2D = false;
    bool sepFilter2D = false; // for rank-1 kernels only
};

struct Measured {
    std::vector<Row> rows;  // ours, then OpenCV's
    Image ourRef;           // the output of our first method
    std::string cvRefName;  // OpenCV's reference row: sepFilter2D for rank 1, else filter2D
    double cvRefMs = 0.0;
};

// Times one case on both sides. OpenCV runs first: its output is the reference for ours, and
// our first method's the reference for OpenCV's. Other outputs are dropped once compared.
Measured measureCase(const Image& img, const cv::Mat& cvIn, const Kernel& k, int rank, const Border& b, int threads,
                     double scale, const Selection& what, int runs)
{
    std::vector<Row> cvRows;
    const auto cvRow = [&](CvFilter f, const char* name) {
        f.anchor = {k.ax(), k.ay()};
        f.border = b;
        Row r;
        r.method = name;
        r.ours = false;
        r.ms = timeRuns(runs, [&] { f.run(cvIn); });
        r.out = fromCv(f.dst);
        cvRows.push_back(std::move(r));
    };
    cv::setNumThreads(threads);
    if (what.filter2D) {
        CvFilter f;
        f.kernel = kernelMat(k);
        cvRow(std::move(f), "cv::filter2D");
    }
    if (what.sepFilter2D && rank == 1) {
        CvFilter f;
        f.kind = CvFilter::SepFilter2D;
        rankOneFactors(k, f.kx, f.ky);
        cvRow(std::move(f), "cv::sepFilter2D");
    }
    const Row* cvRef = cvRows.empty() ? nullptr : &cvRows.back();

    Measured m;
    for (Method method : what.ours) {
        ConvolveParams p;
        p.kernel = k;
        p.border = b;
        p.semantics = Semantics::Correlation;
        p.method = method;
        p.device = Device::Cpu;
        p.threads = threads;
        Row r;
        RunReport rep;
        // Like OpenCV's dst Mat, the output buffer is reused from run to run.
        r.ms = timeRuns(runs, [&] { convolveInto(img, p, r.out, &rep); });
        r.method = methodName(method);
        if (method == Method::Auto) {
            r.method += "(" + methodName(rep.method) + ")";
            r.reason = rep.reason;
        }
        if (cvRef) r.diff = relativeDiff(r.out, cvRef->out, scale);
        if (m.rows.empty()) m.ourRef = std::move(r.out);
        r.out = Image();
        m.rows.push_back(std::move(r));
    }
    if (cvRef) {
        m.cvRefName = cvRef->method;
        m.cvRefMs = medianOf(cvRef->ms);
    }
    for (Row& r : cvRows) {
        if (!m.ourRef.empty()) r.diff = relativeDiff(r.out, m.ourRef, scale);
        r.out = Image();
        m.rows.push_back(std::move(r));
    }
    return m;
}

int runBench(const Options& o)
{
    std::vector<std::pair<int, int>> sizes;
    for (const auto& s : o.sizes) sizes.push_back(parseSize(s));
    std::vector<Kernel> kernels;
    for (const auto& k : o.kernels) kernels.push_back(benchKernel(k));
    std::vector<Border> borders;
    for (const auto& b : o.borders) {
        borders.push_back(parseBorder(b));
        if (convlab::test::cvBorderType(borders.back().mode) < 0)
            std::printf("note: OpenCV has no border type like '%s': its rows time ConvLab only\n",
                        borderName(borders.back().mode).c_str());
    }
    for (int c : o.channels)
        if (c < 1 || c > 4) throw Error("bad channel count " + std::to_string(c) + ": expected 1..4");
    for (int t : o.threads)
        if (t < 1 || t > 1024) throw Error("bad thread count " + std::to_string(t) + ": expected 1..1024");
    if (o.runs < 5) throw Error("--runs " + std::to_string(o.runs) + ": at least 5 runs are needed for a median");
    Selection what;
    for (const auto& m : o.methods) {
        if (m == "filter2d") {
            what.filter2D = true;
        } else if (m == "sepfilter2d") {
            what.sepFilter2D = true;
        } else {
            const Method pm = parseMethod(m);
            if (methodInfo(pm).accuracy == Accuracy::Oracle)
                throw Error("method '" + m + "' is the slow oracle, not benchmarked");
            what.ours.push_back(pm);
        }
    }
    if (!o.json.empty()) { // fail now rather than after a long run
        const auto dir = std::filesystem::path(o.json).parent_path();
        if (!dir.empty() && !std::filesystem::is_directory(dir))
            throw Error("cannot write '" + o.json + "': folder '" + dir.string() + "' does not exist");
    }
    if (!o.dumpDir.empty()) std::filesystem::create_directories(o.dumpDir);

    std::map<int, double> bwOf; // copy bandwidth per thread count of the run
    for (int t : o.threads) bwOf[t] = copyBandwidth(std::max(t, 1));
    const bool peakReset = resetPeakRss();
    std::printf("convlab-bench: OpenCV %s, CPU %s, %u hardware threads\n", CV_VERSION, cpuModel().c_str(),
                std::thread::hardware_concurrency());
    std::printf("copy bandwidth (256 MiB, read+write, best of 5 by memcpy and 5 by streaming stores):");
    for (const auto& [t, bw] : bwOf) std::printf(" %.2f GB/s on %d thread%s%s", bw / 1e9, t, t == 1 ? "" : "s", t == bwOf.rbegin()->first ? "" : ",");
    std::printf("\n");
    std::printf("runs: median of %d after one warm-up; ours/cv = our time / OpenCV's (sepFilter2D for rank-1 "
                "kernels, else filter2D); diff = max|ours - OpenCV| / (sum|K| * max|in|)\n\n",
                o.runs);
    std::printf("%-10s %-10s %-12s %2s %3s  %-16s %10s %9s %6s %8s %9s  %s\n", "size", "kernel", "border", "ch",
                "thr", "method", "median ms", "Mpx/s", "%bw", "ours/cv", "diff", "check");
    std::fflush(stdout);

    nlohmann::json records = nlohmann::json::array(), probeList = nlohmann::json::array(),
                   kernelDoc = nlohmann::json::object();
    for (const Kernel& k : kernels) {
        kernelDoc[k.name] = {{"width", k.width}, {"height", k.height}, {"values", k.values}};
        if (!o.dumpDir.empty()) {
            Image km(k.width, k.height, 1);
            km.data.assign(k.values.begin(), k.values.end());
            writeNpy(km, o.dumpDir + "/kernel_" + k.name + ".npy");
        }
    }
    int disagreements = 0;

    for (auto [w, h] : sizes)
        for (int ch : o.channels) {
            const Image img = randomImage(w, h, ch);
            const cv::Mat cvIn = toCv(img);
            const std::string sizeName = std::to_string(w) + "x" + std::to_string(h);
            const std::string imgTag = sizeName + "_c" + std::to_string(ch);
            if (!o.dumpDir.empty()) writeNpy(img, o.dumpDir + "/input_" + imgTag + ".npy");
            const double maxIn = *std::max_element(img.data.begin(), img.data.end());
            for (const Kernel& k : kernels) {
                const int rank = analyzeRank(k).rank;
                const double scale = k.absSum() * maxIn;
                for (const Border& b : borders) {
                    const std::string bname = borderText(b);
                    for (std::size_t ti = 0; ti < o.threads.size(); ++ti) {
                        const int t = o.threads[ti];
                        Selection forBorder = what;
                        if (convlab::test::cvBorderType(b.mode) < 0) forBorder.filter2D = forBorder.sepFilter2D = false;
                        // The copy of the case's own bytes, measured just before it: on a shared
                        // machine the bandwidth drifts over minutes, so the run-start figure can
                        // be slower or faster than the minute the case ran in.
                        const double caseBw = copyBandwidth(std::max(t, 1), img.data.size(), 3);
                        Measured m = measureCase(img, cvIn, k, rank, b, t, scale, forBorder, o.runs);
                        if (ti == 0 && !m.ourRef.empty()) {
                            probeList.push_back({{"width", w}, {"height", h}, {"channels", ch}, {"kernel", k.name},
                                                 {"border", bname}, {"method", m.rows.front().method},
                                                 {"values", probes(m.ourRef)}});
                            if (!o.dumpDir.empty())
                                writeNpy(m.ourRef, o.dumpDir + "/ours_" + imgTag + "_" + k.name + "_" + bname + ".npy");
                        }
                        for (const Row& r : m.rows) {
                            const double med = medianOf(r.ms);
                            const double mpx = double(w) * h / (med * 1e3);
                            const double bwPct = 100.0 * 2.0 * img.data.size() * sizeof(float) / (med * 1e-3) / caseBw;
                            std::optional<double> ratio;
                            if (r.ours && m.cvRefMs > 0.0) ratio = med / m.cvRefMs;
                            const std::optional<double>& diff = r.diff;
                            const bool agree = !diff || *diff <= kAgreeTol;
                            if (!agree) ++disagreements;
                            std::printf("%-10s %-10s %-12s %2d %3d  %-16s %10.3f %9.1f %6.1f %8s %9s  %s\n",
                                        sizeName.c_str(), k.name.c_str(), bname.c_str(), ch, t,
                                        r.method.c_str(), med, mpx, bwPct,
                                        ratio ? fmt("%.2f", *ratio).c_str() : "-",
                                        diff ? fmt("%.1e", *diff).c_str() : "-", agree ? "ok" : "WARNING: differs");
                            nlohmann::json rec = {{"width", w},
                                                  {"height", h},
                                                  {"channels", ch},
                                                  {"kernel", k.name},
                                                  {"kernel_width", k.width},
                                                  {"kernel_height", k.height},
                                                  {"rank", rank},
                                                  {"border", bname},
                                                  {"threads", t},
                                                  {"method", r.method},
                                                  {"side", r.ours ? "convlab" : "opencv"},
                                                  {"runs_ms", r.ms},
                                                  {"median_ms", med},
                                                  {"mpx_per_s", mpx},
                                                  {"bandwidth_pct", bwPct},
                                                  {"case_copy_bandwidth_bytes_per_s", caseBw},
                                                  {"ratio_vs_opencv", ratio ? nlohmann::json(*ratio) : nullptr},
                                                  {"ratio_against", r.ours ? m.cvRefName : ""},
                                                  {"rel_diff", diff ? nlohmann::json(*diff) : nullptr},
                                                  {"agree", agree}};
                            if (!r.reason.empty()) rec["auto_reason"] = r.reason;
                            records.push_back(std::move(rec));
                        }
                        std::fflush(stdout);
                    }
                }
            }
        }

    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("\npeak memory (max RSS%s): %.1f MiB\n",
                peakReset ? ", after the bandwidth probe" : ", including the 512 MiB bandwidth probe",
                ru.ru_maxrss / 1024.0);
    if (!o.json.empty()) {
        nlohmann::json bwByThreads = nlohmann::json::object();
        for (const auto& [t, bw] : bwOf) bwByThreads[std::to_string(t)] = bw;
        const nlohmann::json doc = {{"tool", "convlab-bench"},
                                    {"machine",
                                     {{"cpu", cpuModel()},
                                      {"hardware_threads", std::thread::hardware_concurrency()},
                                      {"copy_bandwidth_bytes_per_s", bwOf.begin()->second},
                                      {"copy_bandwidth_by_threads", bwByThreads},
                                      {"opencv_version", CV_VERSION},
                                      {"peak_rss_kib", ru.ru_maxrss}}},
                                    {"runs", o.runs},
                                    {"semantics", "correlation"},
                                    {"image_seed", kImageSeed},
                                    {"kernels", kernelDoc},
                                    {"probes", probeList},
                                    {"records", records}};
        writeJsonFile(o.json, doc);
        std::printf("wrote %s (%zu records)\n", o.json.c_str(), records.size());
    }
    if (disagreements) {
        std::printf("WARNING: %d rows differ from the other side by more than %.0e (relative): those timings "
                    "compare different maths\n",
                    disagreements, kAgreeTol);
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    Options o;
    bool quick = false, targets = false;
    CLI::App app{"convlab-bench: ConvLab's CPU methods against OpenCV filter2D/sepFilter2D on the same data"};
    app.add_option("--sizes", o.sizes, "image sizes WxH")->delimiter(',');
    app.add_option("--kernels", o.kernels, "edge8, sobel, gaussianN, denseN, diskN (N odd)")->delimiter(',');
    app.add_option("--borders", o.borders, "border modes (" + borderModeNames() + "; NAME:V for a value)")
        ->delimiter(',');
    app.add_option("--channels", o.channels, "channel counts")->delimiter(',');
    app.add_option("--threads", o.threads, "thread counts (ours: ConvolveParams::threads, OpenCV: setNumThreads)")
        ->delimiter(',');
    std::string methodHelp;
    for (const std::string& m : withOpenCv(benchedMethods())) methodHelp += (methodHelp.empty() ? "" : ", ") + m;
    app.add_option("--methods", o.methods, methodHelp)->delimiter(',');
    app.add_option("--runs", o.runs, "timed runs per row (median; at least 5)");
    app.add_option("--json", o.json, "write every record to this JSON file");
    app.add_option("--dump-dir", o.dumpDir, "write inputs, kernels and our outputs as .npy files here");
    auto* q = app.add_flag("--quick", quick, "small matrix for a smoke test (every border mode)");
    app.add_flag("--targets", targets, "the 4096x4096 target cases (replicate, 1 channel, threads 1 and 2)")
        ->excludes(q);
    CLI11_PARSE(app, argc, argv);

    const auto given = [&](const char* name) { return app.count(name) > 0; };
    if (quick) {
        if (!given("--sizes")) o.sizes = {"256x192", "203x157"};
        if (!given("--kernels")) o.kernels = {"edge8", "sobel", "gaussian5", "dense13", "disk15"};
        if (!given("--borders")) {
            o.borders.clear();
            for (const BorderModeInfo& m : borderModes()) o.borders.emplace_back(m.name);
        }
    } else if (targets) {
        if (!given("--sizes")) o.sizes = {"4096x4096"};
        if (!given("--kernels"))
            o.kernels = {"edge8", "sobel", "gaussian5", "dense11", "dense13", "dense31", "disk63", "gaussian31"};
        if (!given("--borders")) o.borders = {"replicate"};
        if (!given("--channels")) o.channels = {1};
    }
    try {
        return runBench(o);
    } catch (const Error& e) {
        std::fprintf(stderr, "convlab-bench: %s\n", e.what());
    } catch (const cv::Exception& e) {
        std::fprintf(stderr, "convlab-bench: OpenCV: %s\n", e.what());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "convlab-bench: %s\n", e.what());
    }
    return 2;
}
