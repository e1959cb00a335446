// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli's teaching modes, each of which replaces the ordinary run: --probe (how one output
// value comes about), --analyze, --export, --pad-preview and --estimate-kernel.
#include "cli_internal.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "convlab/analysis.h"
#include "convlab/design.h"
#include "convlab/estimate.h"
#include "convlab/export.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/probe.h"

namespace convlab::cli {

// ---- teaching modes: --probe, --analyze, --export, --pad-preview ----

namespace {

Json jsonArray2d(const std::vector<double>& values, int width, int height)
{
    Json rows = Json::array();
    for (int v = 0; v < height; ++v)
        rows.push_back(std::vector<double>(values.begin() + std::ptrdiff_t(v) * width,
                                           values.begin() + std::ptrdiff_t(v + 1) * width));
    return rows;
}

// A right-aligned grid of numbers with an optional mark after some cells.
void printGrid(const std::vector<std::string>& cells, int width, const std::string& indent)
{
    std::size_t w = 0;
    for (const std::string& c : cells) w = std::max(w, c.size());
    for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i % width == 0) std::cout << indent;
        std::cout << std::string(w - cells[i].size() + (i % width ? 2 : 0), ' ') << cells[i];
        if (i % width == std::size_t(width) - 1) std::cout << '\n';
    }
}

std::string sourceText(const ProbeTap& t, const Border& b)
{
    if (t.sourceX < 0) return "constant " + num(b.value, 9);
    return "(" + std::to_string(t.sourceX) + "," + std::to_string(t.sourceY) + ")";
}

// The one-line explanation of how the kernel is applied.
std::string semanticsNote(const ConvolveParams& p, const Kernel& applied)
{
    const std::string a = "(" + std::to_string(applied.ax()) + "," + std::to_string(applied.ay()) + ")";
    if (p.semantics == Semantics::Correlation)
        return "correlation: the kernel is applied as written, out(y,x) = sum K(v,u) in(y-ay+v, x-ax+u)";
    return "convolution: out(y,x) = sum K(v,u) in(y+ay-v, x+ax-u) walks the neighbourhood backwards, so the kernel is "
           "applied flipped in x and y with the anchor mirrored to " + a + ", a correlation with the flipped kernel";
}

} // namespace

int runProbe(const Options& o, const Choices& c)
{
    const auto [x, y] = parsePair(o.probe, "--probe");
    ConvolveParams p = buildParams(o, c);
    if (!o.output.empty()) checkOutputPath(o.input, o.output);
    DecodedImage decoded = decodeImage(o.input);
    const Image in = decoded.samples ? unpackImage(*decoded.samples) : std::move(decoded.image);
    std::vector<std::string> notices = std::move(decoded.notices);
    SaveOptions save;
    save.map = c.map;
    if (!o.output.empty()) save.depth = outputDepth(c.depth, c.map, o.output, in.depth, in.channels, in.hasAlpha, notices);
    PixelProbe pr = probePixel(in, p, x, y, o.channel);
    pr.notices.insert(pr.notices.begin(), notices.begin(), notices.end());
    if (!o.output.empty()) saveImage(convolve(in, p), o.output, save);
    const Kernel& k = pr.applied;
    if (o.json) {
        Json taps = Json::array();
        std::vector<double> values, products;
        for (const ProbeTap& t : pr.taps) {
            taps.push_back({{"x", t.x}, {"y", t.y}, {"value", t.value}, {"weight", t.weight}, {"product", t.product},
                            {"padded", t.padded},
                            {"source", t.sourceX < 0 ? Json() : Json::array({t.sourceX, t.sourceY})}});
            values.push_back(t.value);
            products.push_back(t.product);
        }
        std::vector<double> weights(k.values.begin(), k.values.end());
        Json j;
        j["input"] = {{"path", o.input}, {"width", in.width}, {"height", in.height}, {"channels", in.channels}};
        j["pixel"] = Json::array({x, y});
        j["channel"] = o.channel;
        j["kernel"] = {{"name", p.kernel.name}, {"width", p.kernel.width}, {"height", p.kernel.height},
                       {"anchor", Json::array({p.kernel.ax(), p.kernel.ay()})}};
        j["semantics"] = semanticsName(p.semantics);
        j["border"] = {{"mode", borderName(p.border.mode)}, {"value", p.border.value}};
        j["applied"] = {{"flipped", p.semantics == Semantics::Convolution},
                        {"anchor", Json::array({k.ax(), k.ay()})},
                        {"values", jsonArray2d(weights, k.width, k.height)},
                        {"note", semanticsNote(p, k)}};
        j["passed_through"] = pr.passedThrough;
        j["neighbourhood"] = pr.passedThrough ? Json::array() : jsonArray2d(values, k.width, k.height);
        j["products"] = pr.passedThrough ? Json::array() : jsonArray2d(products, k.width, k.height);
        j["taps"] = std::move(taps);
        j["sum"] = pr.sum;
        j["scale"] = pr.scale;
        j["offset"] = pr.offset;
        j["value"] = pr.value;
        j["notices"] = pr.notices;
        if (!o.output.empty()) j["output"] = o.output;
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    for (const std::string& n : pr.notices) note(n);
    std::cout << "pixel    (" << x << ',' << y << "), channel " << o.channel << " of " << o.input << " (" << in.width
              << 'x' << in.height << ", " << in.channels << (in.channels == 1 ? " channel)" : " channels)") << '\n';
    std::cout << "kernel   " << p.kernel.name << ' ' << p.kernel.width << 'x' << p.kernel.height << ", anchor ("
              << p.kernel.ax() << ',' << p.kernel.ay() << "), border " << borderName(p.border.mode)
              << (p.border.mode == BorderMode::Constant ? "(" + num(p.border.value, 9) + ")" : "") << '\n';
    if (pr.passedThrough) {
        std::cout << "value    " << num(pr.value, 9)
                  << " (the alpha channel is passed through unfiltered; --filter-alpha filters it)\n";
        return 0;
    }
    std::cout << "note     " << semanticsNote(p, k) << '\n';
    std::vector<std::string> cells;
    std::vector<std::string> padded;
    for (const ProbeTap& t : pr.taps) {
        cells.push_back(num(t.value, 6) + (t.padded ? "*" : " "));
        if (t.padded)
            padded.push_back("(" + std::to_string(t.x) + "," + std::to_string(t.y) + ")<-" + sourceText(t, p.border));
    }
    std::cout << "\nneighbourhood: input at x " << x - k.ax() << ".." << x - k.ax() + k.width - 1 << ", y "
              << y - k.ay() << ".." << y - k.ay() + k.height - 1 << " (* outside the image, filled by the border rule)\n";
    printGrid(cells, k.width, "  ");
    if (!padded.empty()) {
        std::cout << "padded taps (x,y)<-source:\n";
        for (std::size_t i = 0; i < padded.size(); ++i)
            std::cout << "  " << padded[i] << (i % 6 == 5 || i + 1 == padded.size() ? "\n" : "");
    }
    cells.clear();
    for (float v : k.values) cells.push_back(num(v, 6));
    std::cout << "\napplied kernel" << (p.semantics == Semantics::Convolution ? " (flipped)" : "") << ", anchor ("
              << k.ax() << ',' << k.ay() << "):\n";
    printGrid(cells, k.width, "  ");
    cells.clear();
    for (const ProbeTap& t : pr.taps) cells.push_back(num(t.product, 6));
    std::cout << "\nproducts (kernel x neighbourhood):\n";
    printGrid(cells, k.width, "  ");
    std::cout << "\nsum      " << num(pr.sum, 17) << '\n'
              << "scale    " << num(pr.scale, 17) << (p.normalize ? " (normalized)" : "") << '\n'
              << "offset   " << num(pr.offset, 17) << '\n'
              << "value    " << num(pr.value, 9) << " = float(scale * sum + offset)\n";
    if (!o.output.empty()) std::cout << "output   " << o.output << '\n';
    return 0;
}

namespace {

std::string symmetryText(const KernelAnalysis& a)
{
    const auto axis = [](bool even, bool odd, const char* name) -> std::string {
        return std::string(even && odd ? "zero" : even ? "even" : odd ? "odd" : "no symmetry") + " in " + name;
    };
    return axis(a.evenX, a.oddX, "x") + ", " + axis(a.evenY, a.oddY, "y");
}

// The grid on which a designed kernel's response is compared with its ideal.
constexpr int kDesignFitGrid = 128;

} // namespace

int runAnalyze(const Options& o, const Choices& c)
{
    const ConvolveParams p = buildParams(o, c);
    const Kernel& k = p.kernel;
    const KernelAnalysis a = analyzeKernel(k);
    const std::optional<FilterDesign> design = designOf(k);
    const DesignFit fit = design ? measureDesign(*design, frequencyResponse(k, kDesignFitGrid)) : DesignFit{};
    if (!o.response.empty()) {
        checkOutputPath({}, o.response);
        SaveOptions save;
        save.map = OutputMap::Normalize; // image files: min-max to the file's range; .npy/TIFF keep floats
        saveImage(frequencyResponse(k, o.responseSize, o.logResponse), o.response, save);
    }
    if (o.json) {
        Json j;
        j["kernel"] = {{"name", k.name}, {"width", k.width}, {"height", k.height},
                       {"anchor", Json::array({k.ax(), k.ay()})}};
        j["sum"] = a.sum;
        j["abs_sum"] = a.absSum;
        j["zero_sum"] = a.zeroSum;
        j["symmetry"] = {{"even_x", a.evenX}, {"odd_x", a.oddX}, {"even_y", a.evenY}, {"odd_y", a.oddY}};
        j["rank"] = a.rank;
        j["singular_values"] = a.singularValues;
        j["separable"] = a.rank == 1 ? Json{{"column", a.column}, {"row", a.row}} : Json();
        j["response"] = {{"class", filterClassName(a.filterClass)}, {"reason", a.classReason},
                         {"dc_gain", a.dcGain}, {"max_gain", a.maxGain}, {"nyquist_gain", a.nyquistGain},
                         {"peak", Json::array({a.peakFx, a.peakFy})}};
        if (design)
            j["design"] = {{"preset", designText(*design)}, {"transition_width", fit.transition},
                           {"pass_deviation", fit.passSamples ? Json(fit.passDeviation) : Json()},
                           {"stop_gain", fit.stopSamples ? Json(fit.stopGain) : Json()}};
        if (!o.response.empty())
            j["response"]["file"] = {{"path", o.response}, {"size", o.responseSize},
                                     {"scale", o.logResponse ? "dB" : "linear"}};
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    const auto list = [](const auto& values) {
        std::string s;
        for (const auto& v : values) s += (s.empty() ? "" : " ") + num(v, 6);
        return s;
    };
    std::cout << "kernel     " << k.name << ' ' << k.width << 'x' << k.height << ", anchor (" << k.ax() << ','
              << k.ay() << ")\n"
              << "sum        " << num(a.sum, 9) << " (the DC gain), sum |K| " << num(a.absSum, 9)
              << (a.zeroSum ? ", zero-sum: flat regions become 0" : "") << '\n'
              << "symmetry   " << symmetryText(a) << '\n'
              << "rank       " << a.rank << " (singular values " << list(a.singularValues) << ")\n";
    if (a.rank == 1) std::cout << "separable  column [" << list(a.column) << "] x row [" << list(a.row) << "]\n";
    std::cout << "response   " << a.classReason << '\n'
              << "gain       DC " << num(a.dcGain, 6) << ", max " << num(a.maxGain, 6) << " at (" << num(a.peakFx)
              << ',' << num(a.peakFy) << ") rad, at (pi,pi) " << num(a.nyquistGain, 6) << '\n';
    if (design)
        std::cout << "design     outside the transition band (" << num(fit.transition, 4)
                  << " cycles/pixel wide at each edge): pass band "
                  << (fit.passSamples ? "within " + num(fit.passDeviation, 3) + " of 1" : "none")
                  << ", stop band " << (fit.stopSamples ? "at most " + num(fit.stopGain, 3) : "none") << '\n';
    if (!o.response.empty())
        std::cout << "written    " << o.response << " (" << o.responseSize << 'x' << o.responseSize << ", "
                  << (o.logResponse ? "dB" : "linear") << " magnitude, zero frequency at the centre)\n";
    return 0;
}

int runExport(const Options& o, const Choices& c)
{
    const ExportTarget target = *c.exportTarget;
    const std::string code = exportCode(buildParams(o, c), target);
    if (o.json) std::cout << Json{{"target", exportTargetName(target)}, {"code", code}}.dump(2) << '\n';
    else std::cout << code;
    return 0;
}

int runPadPreview(const Options& o, const Choices& c)
{
    const Border border = c.border;
    SaveOptions save;
    save.map = c.map;
    checkOutputPath(o.input, o.output);
    formatHoldsDepth(o.output, SampleDepth::U8); // an output format that cannot be written, before the input is read
    DecodedImage decoded = decodeImage(o.input);
    const Image in = decoded.samples ? unpackImage(*decoded.samples) : std::move(decoded.image);
    std::vector<std::string> notices = std::move(decoded.notices);
    save.depth = outputDepth(c.depth, c.map, o.output, in.depth, in.channels, in.hasAlpha, notices);
    const Image out = padPreview(in, border, *o.padMargin);
    saveImage(out, o.output, save);
    if (!o.json)
        for (const std::string& n : notices) note(n);
    if (o.json) {
        std::cout << Json{{"input", {{"path", o.input}, {"width", in.width}, {"height", in.height}}},
                          {"border", {{"mode", borderName(border.mode)}, {"value", border.value}}},
                          {"margin", *o.padMargin},
                          {"notices", notices},
                          {"output", {{"path", o.output}, {"width", out.width}, {"height", out.height}}}}
                         .dump(2)
                  << '\n';
    } else {
        std::cout << "padded   " << o.input << " (" << in.width << 'x' << in.height << ") by " << *o.padMargin
                  << " on every side with " << borderName(border.mode)
                  << (border.mode == BorderMode::Constant ? "(" + num(border.value, 9) + ")" : "") << '\n'
                  << "output   " << o.output << " (" << out.width << 'x' << out.height << ")\n";
    }
    return 0;
}

namespace {

// "WxH": two whole numbers within the estimate's limit.
std::pair<int, int> parseEstimateSize(const std::string& text)
{
    const auto [w, h] = parsePair(text, "--estimate-kernel", "xX", "WxH");
    if (w < 1 || h < 1 || w > kMaxEstimateSide || h > kMaxEstimateSide)
        throw UsageError("bad --estimate-kernel '" + text + "': each side must be 1.." +
                         std::to_string(kMaxEstimateSide));
    return {w, h};
}

// The options of an estimate, every value checked before any file is read.
EstimateOptions estimateOptions(const Options& o, const Choices& c)
{
    EstimateOptions e;
    std::tie(e.width, e.height) = parseEstimateSize(o.estimateSize);
    if (!o.anchor.empty()) {
        Kernel shape(e.width, e.height, std::vector<float>(std::size_t(e.width) * e.height, 0.0f));
        setAnchor(shape, o.anchor);
        e.anchorX = shape.anchorX;
        e.anchorY = shape.anchorY;
    }
    e.semantics = o.correlate ? Semantics::Correlation : Semantics::Convolution;
    if (o.borderGiven) e.border = c.border;
    e.ridge = o.ridge.value_or(0.0);
    if (!std::isfinite(e.ridge) || e.ridge < 0)
        throw UsageError("bad --ridge '" + num(e.ridge) + "': expected a finite number >= 0");
    e.filterAlpha = o.filterAlpha;
    e.threads = o.threads;
    return e;
}

} // namespace

int runEstimate(const Options& o, const Choices& c)
{
    const EstimateOptions e = estimateOptions(o, c);
    if (!o.saveKernel.empty()) {
        checkOutputPath(o.input, o.saveKernel);
        checkOutputPath(o.output, o.saveKernel);
    }
    std::vector<std::string> notices; // what the decoder said about files that decoded whole
    const auto load = [&notices](const std::string& path) {
        DecodedImage d = decodeImage(path);
        notices.insert(notices.end(), d.notices.begin(), d.notices.end());
        return d.samples ? unpackImage(*d.samples) : std::move(d.image);
    };
    const Image source = load(o.input), filtered = load(o.output);
    const KernelEstimate r = estimateKernel(source, filtered, e);
    KernelSpec spec;
    spec.kernel = r.kernel;
    spec.semantics = e.semantics;
    if (!o.saveKernel.empty()) saveKernelFile(spec, o.saveKernel);

    const std::string fitted =
        e.border ? borderName(e.border->mode) + (e.border->mode == BorderMode::Constant ? ":" + num(e.border->value, 9) : "")
                 : "interior";
    if (o.json) {
        Json j = {{"source", o.input}, {"filtered", o.output},
                  {"kernel", Json::parse(kernelToJson(spec))}, // a kernel file's form
                  {"semantics", semanticsName(e.semantics)}, {"border", fitted}, {"ridge", e.ridge},
                  {"channels", r.channels}, {"equations", r.equations}, {"residual_rmse", r.residualRmse},
                  {"notices", notices}};
        if (!o.saveKernel.empty()) j["saved"] = o.saveKernel;
        std::cout << j.dump(2) << '\n';
        return 0;
    }
    for (const std::string& n : notices) note(n);
    // Every line but the kernel's rows is a '#' comment: the output is itself a kernel text.
    const Kernel& k = r.kernel;
    std::cout << "# " << k.width << 'x' << k.height << " kernel estimated from " << oneLine(o.input) << " to "
              << oneLine(o.output) << '\n'
              << "# anchor (" << k.ax() << ',' << k.ay() << "), " << semanticsName(e.semantics) << ", fitted on "
              << (e.border ? "every pixel, border " + fitted : std::string("the interior")) << ", ridge "
              << num(e.ridge, 6) << ", " << r.channels << (r.channels == 1 ? " channel, " : " channels, ")
              << r.equations << " equations\n";
    for (int v = 0; v < k.height; ++v) {
        Kernel row(k.width, 1, std::vector<float>(k.values.begin() + std::ptrdiff_t(v) * k.width,
                                                  k.values.begin() + std::ptrdiff_t(v + 1) * k.width));
        std::cout << row.toText() << '\n';
    }
    std::cout << "# residual RMSE " << num(r.residualRmse, 6) << " (in the filtered image's units)\n";
    if (!o.saveKernel.empty()) std::cout << "# saved " << oneLine(o.saveKernel) << '\n';
    return 0;
}

} // namespace convlab::cli
