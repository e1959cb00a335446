// SPDX-License-Identifier: GPL-3.0-or-later
// Built-in kernels ("preset:gaussian:sigma=2.5,size=15"). Coordinates: x to the right, rows
// downward; angles are counter-clockwise as seen on screen. Kernels are stored for convolution
// semantics (the engine flips them), so derivative presets respond positively where intensity
// increases along +x (right) or +y (down) when convolved.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <numbers>
#include <string>

#include "convlab/design.h"
#include "convlab/error.h"
#include "convlab/kernel.h"

namespace convlab {

namespace {

using Grid = std::vector<double>; // n*n or w*h row-major, in double until the end

class Args {
public:
    explicit Args(std::map<std::string, double> v) : values_(std::move(v)) {}
    double operator[](const std::string& name) const { return values_.at(name); }

private:
    std::map<std::string, double> values_;
};

struct Preset {
    PresetInfo info;
    std::vector<std::string> wholeParams; // parameters that must be whole numbers
    std::function<Kernel(const Args&)> make;
    std::function<FilterDesign(const Args&)> design = {}; // set for the designed filters
};

Kernel fromGrid(int w, int h, const Grid& g)
{
    std::vector<float> v(g.size());
    std::transform(g.begin(), g.end(), v.begin(), [](double x) { return static_cast<float>(x); });
    return Kernel(w, h, std::move(v));
}

Kernel fixed3(std::initializer_list<float> v) { return Kernel(3, 3, std::vector<float>(v)); }

Kernel transposed(const Kernel& k)
{
    Kernel t(k.height, k.width, std::vector<float>(k.values.size()));
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) t.values[std::size_t(u) * t.width + v] = k.at(v, u);
    return t;
}

void scaleToSum(Grid& g, double target)
{
    double s = 0.0;
    for (double x : g) s += x;
    for (double& x : g) x *= target / s;
}

// `size` parameter 0 means auto: 2*ceil(radiusSigmas*sigma)+1, within the kernel size limit.
int sideFor(double sizeParam, double sigma, double radiusSigmas = 3.0)
{
    if (sizeParam > 0) return static_cast<int>(sizeParam);
    const double half = std::ceil(radiusSigmas * sigma);
    return static_cast<int>(std::min<double>(2 * half + 1, kMaxKernelSide));
}

// Sampled, normalized 2D Gaussian on an n x n grid centred at ((n-1)/2, (n-1)/2): the outer
// product of a normalized 1D Gaussian with itself, so it is exactly rank 1 in double.
Grid gaussianGrid(int n, double sigma)
{
    Grid g1(n);
    const double c = (n - 1) / 2.0;
    for (int i = 0; i < n; ++i) g1[i] = std::exp(-(i - c) * (i - c) / (2 * sigma * sigma));
    scaleToSum(g1, 1.0);
    Grid g(std::size_t(n) * n);
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) g[std::size_t(v) * n + u] = g1[v] * g1[u];
    return g;
}

// Exact cosine/sine for multiples of 90 degrees, so axis-aligned presets are exactly symmetric.
std::pair<double, double> cosSin(double degrees)
{
    double a = std::fmod(degrees, 360.0);
    if (a < 0) a += 360.0;
    if (a == 0) return {1, 0};
    if (a == 90) return {0, 1};
    if (a == 180) return {-1, 0};
    if (a == 270) return {0, -1};
    const double r = a * std::numbers::pi / 180.0;
    return {std::cos(r), std::sin(r)};
}

constexpr int kSubsamples = 16; // per axis; a power of two keeps the sample grid exactly symmetric

double subsampleOffset(int i) { return (i + 0.5) / kSubsamples - 0.5; }

// Crops away all-zero outer rings while keeping the centre (the pattern is point-symmetric).
Kernel cropSymmetric(int n, const Grid& g)
{
    const int r = n / 2;
    int rx = 0, ry = 0;
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u)
            if (g[std::size_t(v) * n + u] != 0.0) {
                rx = std::max(rx, std::abs(u - r));
                ry = std::max(ry, std::abs(v - r));
            }
    Grid out;
    for (int v = r - ry; v <= r + ry; ++v)
        for (int u = r - rx; u <= r + rx; ++u) out.push_back(g[std::size_t(v) * n + u]);
    return fromGrid(2 * rx + 1, 2 * ry + 1, out);
}

Kernel motion(double length, double angle)
{
    const auto [c, s] = cosSin(angle);
    const double half = length / 2;
    const int n = 2 * static_cast<int>(std::ceil((length - 1) / 2)) + 1;
    const int r = n / 2;
    Grid g(std::size_t(n) * n, 0.0);
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) {
            const double x = u - r, y = v - r;
            // Along the line (c, -s) in (column, row) and across it; skip pixels far from it.
            if (std::fabs(x * c - y * s) > half + 0.75 || std::fabs(x * s + y * c) > 1.25) continue;
            int inside = 0;
            for (int j = 0; j < kSubsamples; ++j)
                for (int i = 0; i < kSubsamples; ++i) {
                    const double px = x + subsampleOffset(i), py = y + subsampleOffset(j);
                    inside += std::fabs(px * c - py * s) <= half && std::fabs(px * s + py * c) <= 0.5;
                }
            g[std::size_t(v) * n + u] = inside;
        }
    scaleToSum(g, 1.0);
    return cropSymmetric(n, g);
}

Kernel disk(double radius)
{
    const int r = static_cast<int>(std::ceil(radius - 0.5));
    const int n = 2 * r + 1;
    const double r2 = radius * radius;
    Grid g(std::size_t(n) * n, 0.0);
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) {
            const double ax = std::abs(u - r), ay = std::abs(v - r);
            const double nx = std::max(ax - 0.5, 0.0), ny = std::max(ay - 0.5, 0.0);
            double w = 0.0;
            if ((ax + 0.5) * (ax + 0.5) + (ay + 0.5) * (ay + 0.5) <= r2) {
                w = 1.0;
            } else if (nx * nx + ny * ny < r2) {
                int inside = 0;
                for (int j = 0; j < kSubsamples; ++j)
                    for (int i = 0; i < kSubsamples; ++i) {
                        const double px = ax + subsampleOffset(i), py = ay + subsampleOffset(j);
                        inside += px * px + py * py <= r2;
                    }
                w = double(inside) / (kSubsamples * kSubsamples);
            }
            g[std::size_t(v) * n + u] = w;
        }
    scaleToSum(g, 1.0);
    return fromGrid(n, n, g);
}

Kernel laplacianOfGaussian(double sigma, int n)
{
    const double c = (n - 1) / 2.0, s2 = sigma * sigma;
    Grid g(std::size_t(n) * n);
    double mean = 0.0;
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) {
            const double q = ((u - c) * (u - c) + (v - c) * (v - c)) / (2 * s2);
            const double val = -(1.0 - q) * std::exp(-q) / (std::numbers::pi * s2 * s2);
            g[std::size_t(v) * n + u] = val;
            mean += val;
        }
    mean /= double(g.size());
    for (double& x : g) x -= mean;
    return fromGrid(n, n, g);
}

Kernel gabor(const Args& a)
{
    const double sigma = a["sigma"], gamma = a["gamma"], lambda = a["lambda"];
    const int n = sideFor(a["size"], std::max(sigma, sigma / gamma));
    const auto [ct, st] = cosSin(a["theta"]);
    const double psi = a["psi"] * std::numbers::pi / 180.0;
    const double c = (n - 1) / 2.0;
    Grid g(std::size_t(n) * n);
    for (int v = 0; v < n; ++v)
        for (int u = 0; u < n; ++u) {
            const double x = u - c, yUp = c - v;
            const double xr = x * ct + yUp * st, yr = -x * st + yUp * ct;
            g[std::size_t(v) * n + u] = std::exp(-(xr * xr + gamma * gamma * yr * yr) / (2 * sigma * sigma)) *
                                        std::cos(2 * std::numbers::pi * xr / lambda + psi);
        }
    return fromGrid(n, n, g);
}

// A whole-number parameter whose 0 lets the preset choose (a side, a width).
PresetParam autoParam(const char* name, std::string help)
{
    PresetParam p{name, 0, 0, kMaxKernelSide, std::move(help)};
    p.zeroIsAuto = true;
    return p;
}

PresetParam sizeParam(const char* rule)
{
    return autoParam("size", std::string("kernel side; 0 = auto, ") + rule);
}

PresetParam choiceParam(const char* name, const std::vector<std::string>& choices, int defaultIndex, const char* help)
{
    return {name, double(defaultIndex), 0, double(choices.size() - 1), help, choices};
}

// A windowed-sinc design (docs/semantics.md, *Filter design*) as a preset.
Preset designPreset(FilterBand band)
{
    static const char* const kDescriptions[] = {
        "Windowed-sinc low-pass: passes frequencies below the cut-off (DC gain 1).",
        "Windowed-sinc high-pass: delta minus the low-pass, stops frequencies below the cut-off (DC gain 0).",
        "Windowed-sinc band-pass: the low-pass at f2 minus the low-pass at f1 (DC gain 0).",
        "Windowed-sinc band-stop: delta minus the band-pass, stops f1..f2 (DC gain 1)."};
    const FilterDesign defaults;
    const bool hasBand = band == FilterBand::BandPass || band == FilterBand::BandStop;
    std::vector<PresetParam> params;
    if (hasBand) {
        params.push_back({"f1", defaults.f1, 0, 0.5, "lower band edge in cycles/pixel, 0 < f1 < f2"});
        params.push_back({"f2", defaults.f2, 0, 0.5, "upper band edge in cycles/pixel, f1 < f2 < 0.5"});
    } else {
        params.push_back({"cutoff", band == FilterBand::LowPass ? 0.1 : 0.25, 0, 0.5,
                          "cut-off frequency in cycles/pixel, 0 < cutoff < 0.5 (0.5 is Nyquist)"});
    }
    params.push_back({"size", double(hasBand ? 21 : defaults.size), 3, kMaxKernelSide, "kernel side, odd"});
    params.push_back(choiceParam("window", designWindowNames(), static_cast<int>(defaults.window),
                                 "the window that tapers the ideal response's taps"));
    params.push_back({"beta", defaults.beta, 0, 50, "Kaiser window shape (larger: lower ripple, wider transition)"});
    params.push_back(choiceParam("shape", designShapeNames(), static_cast<int>(defaults.shape),
                                 "separable: from the outer product of a 1-D low-pass (square pass region); "
                                 "radial: circularly symmetric"));
    std::string description = kDescriptions[static_cast<int>(band)];
    description += " Separable or radially symmetric; the window is rectangular, Hann, Hamming, Blackman or Kaiser.";
    const auto design = [band, hasBand](const Args& a) {
        FilterDesign d;
        d.band = band;
        d.f1 = hasBand ? a["f1"] : a["cutoff"];
        if (hasBand) d.f2 = a["f2"];
        d.size = static_cast<int>(a["size"]);
        d.window = static_cast<DesignWindow>(static_cast<int>(a["window"]));
        d.beta = a["beta"];
        d.shape = static_cast<DesignShape>(static_cast<int>(a["shape"]));
        return d;
    };
    return {{filterBandNames()[static_cast<std::size_t>(band)], description, params},
            {"size"},
            [design](const Args& a) { return designKernel(design(a)); },
            design};
}

std::vector<Preset> buildPresets()
{
    const Kernel sobelX = fixed3({1, 0, -1, 2, 0, -2, 1, 0, -1});
    const Kernel scharrX = fixed3({3, 0, -3, 10, 0, -10, 3, 0, -3});
    const Kernel prewittX = fixed3({1, 0, -1, 1, 0, -1, 1, 0, -1});
    const Kernel laplacian8 = fixed3({1, 1, 1, 1, -8, 1, 1, 1, 1});
    const auto fixed = [](const char* name, std::string description, Kernel k) {
        return Preset{{name, std::move(description), {}}, {}, [k](const Args&) { return k; }};
    };
    const char* xNote = " Stored for convolution (the engine flips it): convolving gives a positive response "
                        "where intensity increases to the right.";
    const char* yNote = " Stored for convolution (the engine flips it): convolving gives a positive response "
                        "where intensity increases downward.";

    std::vector<Preset> p;
    p.push_back({{"identity", "Delta: a single 1 at the centre; the output equals the input.",
                  {{"size", 3, 1, kMaxKernelSide, "kernel side"}}},
                 {"size"},
                 [](const Args& a) {
                     const int n = static_cast<int>(a["size"]);
                     Kernel k(n, n, std::vector<float>(std::size_t(n) * n, 0.0f));
                     k.values[std::size_t(n / 2) * n + n / 2] = 1.0f;
                     return k;
                 }});
    p.push_back({{"box", "Mean filter: every weight 1/(width*height).",
                  {{"size", 3, 1, kMaxKernelSide, "kernel side"},
                   autoParam("width", "width; 0 = size"),
                   autoParam("height", "height; 0 = size")}},
                 {"size", "width", "height"},
                 [](const Args& a) {
                     const int w = static_cast<int>(a["width"] > 0 ? a["width"] : a["size"]);
                     const int h = static_cast<int>(a["height"] > 0 ? a["height"] : a["size"]);
                     return Kernel(w, h, std::vector<float>(std::size_t(w) * h, float(1.0 / (double(w) * h))));
                 }});
    p.push_back({{"gaussian", "Sampled Gaussian, normalized to sum 1 (separable, rank 1).",
                  {{"sigma", 1, 0.1, 100, "standard deviation in pixels"}, sizeParam("2*ceil(3*sigma)+1")}},
                 {"size"},
                 [](const Args& a) {
                     const int n = sideFor(a["size"], a["sigma"]);
                     return fromGrid(n, n, gaussianGrid(n, a["sigma"]));
                 }});
    p.push_back(fixed("sobel-x", std::string("Sobel derivative along x: 1 0 -1; 2 0 -2; 1 0 -1.") + xNote, sobelX));
    p.push_back(fixed("sobel-y", std::string("Sobel derivative along y: 1 2 1; 0 0 0; -1 -2 -1.") + yNote,
                      transposed(sobelX)));
    p.push_back(fixed("scharr-x", std::string("Scharr derivative along x: 3 0 -3; 10 0 -10; 3 0 -3.") + xNote,
                      scharrX));
    p.push_back(fixed("scharr-y", std::string("Scharr derivative along y: 3 10 3; 0 0 0; -3 -10 -3.") + yNote,
                      transposed(scharrX)));
    p.push_back(fixed("prewitt-x", std::string("Prewitt derivative along x: 1 0 -1; 1 0 -1; 1 0 -1.") + xNote,
                      prewittX));
    p.push_back(fixed("prewitt-y", std::string("Prewitt derivative along y: 1 1 1; 0 0 0; -1 -1 -1.") + yNote,
                      transposed(prewittX)));
    p.push_back(fixed("laplacian4", "4-neighbour Laplacian: 0 1 0; 1 -4 1; 0 1 0 (zero sum).",
                      fixed3({0, 1, 0, 1, -4, 1, 0, 1, 0})));
    p.push_back(fixed("laplacian8", "8-neighbour Laplacian: 1 1 1; 1 -8 1; 1 1 1 (zero sum, rank 2).", laplacian8));
    p.push_back(fixed("edge8", "Edge detector 1 1 1; 1 -8 1; 1 1 1 (the same kernel as laplacian8).", laplacian8));
    p.push_back(fixed("sharpen", "Sharpen: 0 -1 0; -1 5 -1; 0 -1 0 (sum 1).", fixed3({0, -1, 0, -1, 5, -1, 0, -1, 0})));
    p.push_back(fixed("emboss", "Emboss: -2 -1 0; -1 1 1; 0 1 2 (sum 1).", fixed3({-2, -1, 0, -1, 1, 1, 0, 1, 2})));
    p.push_back({{"unsharp", "Unsharp mask: delta + amount*(delta - gaussian), sum 1.",
                  {{"sigma", 1, 0.1, 100, "blur standard deviation in pixels"},
                   {"amount", 1, 0, 10, "strength of the sharpening"},
                   sizeParam("2*ceil(3*sigma)+1")}},
                 {"size"},
                 [](const Args& a) {
                     const int n = sideFor(a["size"], a["sigma"]);
                     Grid g = gaussianGrid(n, a["sigma"]);
                     for (double& x : g) x *= -a["amount"];
                     g[std::size_t(n / 2) * n + n / 2] += 1.0 + a["amount"];
                     return fromGrid(n, n, g);
                 }});
    p.push_back({{"motion", "Motion blur: an antialiased line of the given length and angle, normalized to sum 1.",
                  {{"length", 9, 1, kMaxKernelSide, "line length in pixels"},
                   {"angle", 0, -360, 360, "degrees counter-clockwise from the x axis, as seen on screen"}}},
                 {},
                 [](const Args& a) { return motion(a["length"], a["angle"]); }});
    p.push_back({{"disk", "Pillbox (defocus) blur: a disk with area-weighted edge pixels, normalized to sum 1.",
                  {{"radius", 3, 0.5, 512, "radius in pixels"}}},
                 {},
                 [](const Args& a) { return disk(a["radius"]); }});
    p.push_back({{"log", "Laplacian of Gaussian (negative centre, like laplacian4), shifted to zero sum.",
                  {{"sigma", 1.4, 0.1, 100, "standard deviation in pixels"}, sizeParam("2*ceil(4*sigma)+1")}},
                 {"size"},
                 [](const Args& a) { return laplacianOfGaussian(a["sigma"], sideFor(a["size"], a["sigma"], 4.0)); }});
    p.push_back({{"dog", "Difference of Gaussians: gaussian(sigma1) - gaussian(sigma2), each normalized (zero sum).",
                  {{"sigma1", 1, 0.1, 100, "first standard deviation in pixels"},
                   {"sigma2", 1.6, 0.1, 100, "second standard deviation in pixels"},
                   sizeParam("2*ceil(3*max(sigma1, sigma2))+1")}},
                 {"size"},
                 [](const Args& a) {
                     if (a["sigma1"] == a["sigma2"])
                         throw Error("preset 'dog': sigma1 and sigma2 must differ (the difference would be zero)");
                     const int n = sideFor(a["size"], std::max(a["sigma1"], a["sigma2"]));
                     Grid g = gaussianGrid(n, a["sigma1"]);
                     const Grid g2 = gaussianGrid(n, a["sigma2"]);
                     for (std::size_t i = 0; i < g.size(); ++i) g[i] -= g2[i];
                     return fromGrid(n, n, g);
                 }});
    p.push_back({{"gabor", "Gabor filter, real part: Gaussian envelope times a cosine wave (peak 1).",
                  {{"sigma", 3, 0.5, 100, "envelope standard deviation in pixels"},
                   {"theta", 0, -360, 360, "wave direction, degrees counter-clockwise from the x axis"},
                   {"lambda", 8, 2, 1000, "wavelength in pixels"},
                   {"gamma", 0.5, 0.1, 10, "aspect ratio of the envelope"},
                   {"psi", 0, -360, 360, "phase offset in degrees"},
                   sizeParam("2*ceil(3*max(sigma, sigma/gamma))+1")}},
                 {"size"},
                 gabor});
    for (FilterBand band : {FilterBand::LowPass, FilterBand::HighPass, FilterBand::BandPass, FilterBand::BandStop})
        p.push_back(designPreset(band));
    return p;
}

const std::vector<Preset>& presets()
{
    static const std::vector<Preset> list = buildPresets();
    return list;
}

std::string numberText(double v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string trim(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t");
    if (b == std::string_view::npos) return {};
    return std::string(s.substr(b, s.find_last_not_of(" \t") - b + 1));
}

template <class T, class F> std::string joined(const std::vector<T>& items, F name)
{
    std::string out;
    for (const T& item : items) {
        if (!out.empty()) out += ", ";
        out += name(item);
    }
    return out;
}

std::string lowered(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

double choiceIndex(const std::string& where, const PresetParam& param, const std::string& valueText)
{
    const auto it = std::find(param.choices.begin(), param.choices.end(), lowered(valueText));
    if (it == param.choices.end())
        throw Error(where + ": " + param.name + "='" + valueText + "' is not one of " +
                    joined(param.choices, [](const std::string& c) { return c; }));
    return double(it - param.choices.begin());
}

Args parseArgs(const Preset& preset, std::string_view text)
{
    const PresetInfo& info = preset.info;
    const std::string where = "preset '" + info.name + "'";
    std::map<std::string, double> values;
    std::map<std::string, bool> given;
    for (const PresetParam& p : info.params) values[p.name] = p.defaultValue;

    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        const std::string item = trim(text.substr(start, end - start));
        start = end + 1;
        if (item.empty()) continue;

        const auto eq = item.find('=');
        if (eq == std::string::npos) throw Error(where + ": expected NAME=VALUE, got '" + item + "'");
        const std::string name = trim(item.substr(0, eq));
        std::string valueText = trim(item.substr(eq + 1));
        const auto param = std::find_if(info.params.begin(), info.params.end(),
                                        [&](const PresetParam& p) { return p.name == name; });
        if (param == info.params.end())
            throw Error(where + " has no parameter '" + name + "'" +
                        (info.params.empty() ? std::string(" (it takes none)")
                                             : " (parameters: " +
                                                   joined(info.params, [](const PresetParam& p) { return p.name; }) +
                                                   ")"));
        if (given[name]) throw Error(where + ": parameter '" + name + "' is given twice");
        given[name] = true;

        if (!param->choices.empty()) {
            values[name] = choiceIndex(where, *param, valueText);
            continue;
        }
        double value = 0.0;
        const char* first = valueText.data() + (valueText.starts_with('+') ? 1 : 0);
        const char* last = valueText.data() + valueText.size();
        const auto res = std::from_chars(first, last, value);
        if (valueText.empty() || res.ec != std::errc() || res.ptr != last || !std::isfinite(value))
            throw Error(where + ": " + name + "='" + valueText + "' is not a number");
        if (value < param->minValue || value > param->maxValue)
            throw Error(where + ": " + name + "=" + valueText + " is outside the range " +
                        numberText(param->minValue) + ".." + numberText(param->maxValue));
        if (std::find(preset.wholeParams.begin(), preset.wholeParams.end(), name) != preset.wholeParams.end() &&
            value != std::floor(value))
            throw Error(where + ": " + name + "=" + valueText + " must be a whole number");
        values[name] = value;
    }
    return Args(std::move(values));
}

} // namespace

const std::vector<PresetInfo>& presetList()
{
    static const std::vector<PresetInfo> list = [] {
        std::vector<PresetInfo> out;
        for (const Preset& p : presets()) {
            PresetInfo info = p.info;
            for (PresetParam& param : info.params)
                param.whole = std::find(p.wholeParams.begin(), p.wholeParams.end(), param.name) != p.wholeParams.end();
            out.push_back(std::move(info));
        }
        return out;
    }();
    return list;
}

Kernel makePreset(std::string_view name, std::string_view params)
{
    const auto& list = presets();
    const auto it = std::find_if(list.begin(), list.end(), [&](const Preset& p) { return p.info.name == name; });
    if (it == list.end())
        throw Error("unknown preset '" + std::string(name) + "' (presets: " +
                    joined(list, [](const Preset& p) { return p.info.name; }) + ")");
    Kernel k = it->make(parseArgs(*it, params));
    if (k.name.empty()) k.name = it->info.name;
    k.validate();
    return k;
}

std::optional<FilterDesign> designFromPreset(std::string_view name, std::string_view params)
{
    const auto& list = presets();
    const auto it = std::find_if(list.begin(), list.end(), [&](const Preset& p) { return p.info.name == name; });
    if (it == list.end() || !it->design) return std::nullopt;
    return it->design(parseArgs(*it, params));
}

} // namespace convlab
