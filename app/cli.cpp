// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli: parses the command line, runs the engine and reports what it did, as a short
// text summary or as one JSON object. Every failure is one line on stderr and exit status 1
// (2 for a bad command line: an unknown option, option value or name, a missing argument);
// every option value is checked before any file is read, and the output format and depth before
// anything is computed. The output file is only ever written, atomically, after a good run.
// With -O DIR (batch mode, batch.cpp) every positional is an input and a bad input is skipped
// while the others go on (exit status 3 when any was).
#include "cli.h"

#include "batch.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <deque>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "convlab/analysis.h"
#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/design.h"
#include "convlab/estimate.h"
#include "convlab/export.h"
#include "convlab/probe.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"

#ifndef CONVLAB_VERSION
#define CONVLAB_VERSION "unknown"
#endif

namespace convlab {

namespace cli {

// One terminal line that is safe to print: newlines become spaces, and control bytes (which
// a kernel text or a binary file may carry into a message: escape sequences, bells) are
// written as \xNN instead of reaching the terminal.
std::string oneLine(const std::string& s)
{
    std::string out;
    out.reserve(s.size());
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n' || c == '\r' || c == '\t') {
            out += ' ';
        } else if (c < 0x20 || c == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", c);
            out += hex;
        } else {
            out += ch; // UTF-8 bytes of other scripts pass unchanged
        }
    }
    return out;
}

} // namespace cli

namespace {

namespace fs = std::filesystem;
using namespace cli;

struct Options {
    std::string input, output, kernel, anchor, depth, compare;
    std::string border = "reflect", method = "auto", device = "auto", map = "clamp";
    // Given explicitly, these override what a JSON kernel file says.
    std::optional<double> scale, offset;
    bool correlate = false, convolve = false, normalize = false, noNormalize = false;
    bool json = false, filterAlpha = false, listPresets = false, version = false;
    std::string list; // --list border-modes | methods
    int threads = 0, repeat = 1;
    // Teaching modes: each replaces the ordinary run.
    std::string probe, exportTarget, response;
    int channel = 0, responseSize = 256;
    bool analyze = false, logResponse = false;
    std::optional<int> padMargin;
    // --estimate-kernel WxH: INPUT is the source, OUTPUT the filtered image.
    std::string estimateSize, saveKernel;
    std::optional<double> ridge;
    bool borderGiven = false; // without --border the estimate fits the interior only
    // Batch mode: every positional is an input when -O or --inputs is given.
    std::vector<std::string> more; // positionals after INPUT and OUTPUT
    std::string outDir, inputList, format;
};

int fail(const std::string& message, int status)
{
    std::cerr << kProgram << ": error: " << oneLine(message) << '\n';
    return status;
}

void note(const std::string& message) { std::cerr << kProgram << ": note: " << oneLine(message) << '\n'; }

// The core's parse of an option value, its error turned into a usage error.
template <class Parse> auto optionValue(Parse&& parse) -> decltype(parse())
{
    try {
        return parse();
    } catch (const UsageError&) {
        throw;
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
}

// Shortest readable spelling of a number for the text summary.
std::string num(double v, int precision = 4)
{
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    return buf;
}

std::string depthLabel(SampleDepth d)
{
    switch (d) {
    case SampleDepth::U8: return "8";
    case SampleDepth::U16: return "16";
    case SampleDepth::F32: return "32f";
    }
    return "32f";
}

SampleDepth parseDepth(const std::string& text)
{
    if (text == "8") return SampleDepth::U8;
    if (text == "16") return SampleDepth::U16;
    if (text == "32f") return SampleDepth::F32;
    throw UsageError("unknown --depth '" + text + "' (expected 8, 16 or 32f)");
}

std::string semanticsName(Semantics s) { return s == Semantics::Correlation ? "correlation" : "convolution"; }

bool isNpy(const std::string& path)
{
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".npy";
}

// "X,Y" (or another `form`, split at any of `separators`): two whole numbers; `what` names the
// option in the message.
std::pair<int, int> parsePair(const std::string& text, const std::string& what, const char* separators = ",",
                              const char* form = "X,Y")
{
    const auto comma = text.find_first_of(separators);
    const std::string parts[2] = {text.substr(0, comma), comma == std::string::npos ? "" : text.substr(comma + 1)};
    int xy[2] = {0, 0};
    for (int i = 0; i < 2; ++i) {
        const char* first = parts[i].data();
        const char* last = first + parts[i].size();
        const auto [end, ec] = std::from_chars(first, last, xy[i]);
        if (comma == std::string::npos || parts[i].empty() || ec != std::errc() || end != last)
            throw UsageError("bad " + what + " '" + text + "': expected " + form + " as whole numbers");
    }
    return {xy[0], xy[1]};
}

// "X,Y": whole numbers inside the kernel.
void setAnchor(Kernel& k, const std::string& text)
{
    const auto [x, y] = parsePair(text, "--anchor");
    if (x < 0 || y < 0 || x >= k.width || y >= k.height)
        throw UsageError("bad --anchor '" + text + "': outside the " + std::to_string(k.width) + "x" +
                    std::to_string(k.height) + " kernel");
    k.anchorX = x;
    k.anchorY = y;
}

// Every named option value, parsed before any file is read: a misspelt name is a usage error
// (exit status 2) whatever else is wrong.
struct Choices {
    Border border;
    Method method = Method::Auto;
    Device device = Device::Auto;
    OutputMap map = OutputMap::Clamp;
    std::optional<SampleDepth> depth;
    std::optional<std::pair<Method, Device>> compare;
    std::optional<ExportTarget> exportTarget;
};

Choices parseChoices(const Options& o)
{
    Choices c;
    c.border = optionValue([&] { return parseBorder(o.border); });
    c.method = optionValue([&] { return parseMethod(o.method); });
    c.device = optionValue([&] { return parseDevice(o.device); });
    c.map = optionValue([&] { return parseOutputMap(o.map); });
    if (!o.depth.empty()) c.depth = parseDepth(o.depth);
    if (!o.compare.empty()) {
        const auto at = o.compare.find('@');
        const Method m = optionValue([&] { return parseMethod(o.compare.substr(0, at)); });
        const Device d =
            at == std::string::npos ? Device::Cpu : optionValue([&] { return parseDevice(o.compare.substr(at + 1)); });
        c.compare = {m, d};
    }
    if (!o.exportTarget.empty()) c.exportTarget = optionValue([&] { return parseExportTarget(o.exportTarget); });
    return c;
}

// The output's depth, decided before anything is computed: --depth when given (the format
// must hold it), else float32 for .npy, else the input's depth when the output format holds
// it, else the deepest it does hold: a float .npy written to a PNG becomes 16-bit (0..1 to
// 0..65535), a 16-bit PNG written to a JPEG 8-bit, with one notice saying so. Also refuses an
// output format that cannot take the image's channels.
} // namespace

SampleDepth cli::outputDepth(std::optional<SampleDepth> depth, OutputMap map, const std::string& output,
                             SampleDepth input, int channels, bool hasAlpha, std::vector<std::string>& notices)
{
    SaveOptions check;
    check.depth = depth;
    checkSaveTarget(output, check, channels, hasAlpha);
    if (depth) return *depth;
    if (isNpy(output)) return SampleDepth::F32;
    if (formatHoldsDepth(output, input)) return input;
    const SampleDepth held = input == SampleDepth::F32 && formatHoldsDepth(output, SampleDepth::U16)
                                 ? SampleDepth::U16
                                 : SampleDepth::U8;
    const std::string ext = fs::path(output).extension().string();
    notices.push_back("'" + ext + "' files hold no " + (input == SampleDepth::F32 ? "float32" : "16-bit") +
                      " samples: writing " + (held == SampleDepth::U16 ? "16-bit" : "8-bit") +
                      ", the deepest they hold (mapped by --map " + outputMapName(map) + "; --depth chooses)");
    return held;
}

namespace {

// Refuses an output that would overwrite the input (when there is one) or land in a folder that
// does not exist.
void checkOutputPath(const std::string& input, const std::string& output)
{
    std::error_code ec, inEc, outEc;
    const fs::path out(output);
    if (fs::is_directory(out, ec)) throw Error("output '" + output + "' is a folder");
    const fs::path inCanon = fs::weakly_canonical(input, inEc), outCanon = fs::weakly_canonical(out, outEc);
    const bool same =
        !input.empty() && (fs::equivalent(input, out, ec) || (!inEc && !outEc && inCanon == outCanon));
    if (same) throw Error("output '" + output + "' is the input file; choose another name");
    const fs::path dir = out.has_parent_path() ? out.parent_path() : fs::path(".");
    if (!fs::is_directory(dir, ec)) throw Error("output folder '" + dir.string() + "' does not exist");
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void printPresets()
{
    const auto& presets = presetList();
    std::size_t nameWidth = 0;
    std::vector<std::string> params;
    for (const PresetInfo& p : presets) {
        nameWidth = std::max(nameWidth, p.name.size());
        std::string s;
        for (const PresetParam& q : p.params)
            s += (s.empty() ? "" : ",") + q.name + "=" +
                 (q.choices.empty() ? num(q.defaultValue, 6) : q.choices[std::size_t(q.defaultValue)]);
        params.push_back(s.empty() ? "-" : s);
    }
    std::size_t paramWidth = 0;
    for (const std::string& s : params) paramWidth = std::max(paramWidth, s.size());
    for (std::size_t i = 0; i < presets.size(); ++i) {
        std::string line = presets[i].name;
        line.resize(nameWidth + 2, ' ');
        line += params[i];
        line.resize(nameWidth + 2 + paramWidth + 2, ' ');
        std::cout << line << presets[i].description << '\n';
    }
}

// ---- --list border-modes | methods: the tables of convlab/modes.h, for people and scripts ----

Json nameOrNull(const char* text) { return text ? Json(text) : Json(); }

Json aliasList(std::span<const char* const> aliases)
{
    Json out = Json::array();
    for (const char* a : aliases) out.push_back(a);
    return out;
}

std::string accuracyName(Accuracy a)
{
    switch (a) {
    case Accuracy::Oracle: return "oracle";
    case Accuracy::Float: return "float";
    case Accuracy::Fft: return "fft";
    case Accuracy::OfItsPick: return "of_its_pick";
    }
    return "?";
}

// Every field of each row.
Json borderModesJson()
{
    Json rows = Json::array();
    for (const BorderModeInfo& m : borderModes())
        rows.push_back({{"name", m.name}, {"aliases", aliasList(m.aliases)}, {"takes_value", m.takesValue},
                        {"rule", m.rule}, {"example", m.example}, {"opencv", nameOrNull(m.opencv)},
                        {"opencv_filter2d", m.opencvFilter2D}, {"scipy", nameOrNull(m.scipy)},
                        {"scipy_note", nameOrNull(m.scipyNote)}, {"matlab", nameOrNull(m.matlab)},
                        {"gimp", nameOrNull(m.gimp)}, {"gmic", nameOrNull(m.gmic)}});
    return rows;
}

Json methodsJson()
{
    Json rows = Json::array();
    for (const MethodInfo& m : methods())
        rows.push_back({{"name", m.name}, {"aliases", aliasList(m.aliases)}, {"description", m.description},
                        {"accuracy", accuracyName(m.accuracy)}, {"tolerance", toleranceOf(m.accuracy)},
                        {"auto_candidate", m.autoCandidate}});
    return rows;
}

// One line a row: the name (with [:VALUE] where it takes one), the rule or description, and the
// aliases, in columns.
void printTable(const std::vector<std::array<std::string, 3>>& rows)
{
    // Columns in characters, not bytes: a rule may hold UTF-8 (a minus sign).
    const auto width = [](const std::string& s) {
        return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xc0) != 0x80; }));
    };
    std::size_t w0 = 0, w1 = 0;
    for (const auto& r : rows) w0 = std::max(w0, width(r[0])), w1 = std::max(w1, width(r[1]));
    for (const auto& r : rows) {
        std::string line = r[0] + std::string(w0 + 2 - width(r[0]), ' ') + r[1];
        if (!r[2].empty()) line += std::string(w1 + 2 - width(r[1]), ' ') + "also " + r[2];
        std::cout << line << '\n';
    }
}

std::string joined(std::span<const char* const> words)
{
    std::string out;
    for (const char* w : words) out += (out.empty() ? "" : ", ") + std::string(w);
    return out;
}

void printList(const std::string& what, bool json)
{
    const std::string table = normalizedName(what);
    std::vector<std::array<std::string, 3>> rows;
    if (table == "border_modes" || table == "borders") {
        if (json) {
            std::cout << borderModesJson().dump(2) << '\n';
            return;
        }
        for (const BorderModeInfo& m : borderModes())
            rows.push_back({std::string(m.name) + (m.takesValue ? "[:VALUE]" : ""), m.rule, joined(m.aliases)});
    } else if (table == "methods") {
        if (json) {
            std::cout << methodsJson().dump(2) << '\n';
            return;
        }
        for (const MethodInfo& m : methods()) rows.push_back({m.name, m.description, joined(m.aliases)});
    } else {
        throw UsageError("unknown --list '" + what + "' (expected border-modes or methods)");
    }
    printTable(rows);
}

void printVersion()
{
    std::string why, formatsWhy;
    const bool cuda = cudaAvailable(&why);
    const bool formats = imageFormatsAvailable(&formatsWhy);
    std::cout << kProgram << ' ' << CONVLAB_VERSION << '\n'
              << "image formats: "
              << (formats ? "yes (PNG, JPEG, TIFF, BMP, PNM, WebP, .npy)" : "no (.npy only: " + formatsWhy + ")") << '\n'
              << "CUDA: " << (cuda ? "available" : "unavailable (" + why + ")") << '\n';
}

// The rank of the kernel for the report: the engine's when it computed one, else our own SVD
// for kernels small enough that it costs nothing worth mentioning.
std::optional<SvdInfo> kernelRank(const Kernel& k, const RunReport& rep)
{
    if (rep.rank >= 0) return SvdInfo{rep.singularValues, rep.rank};
    if (k.width * k.height <= 64 * 64) return analyzeRank(k);
    return std::nullopt;
}

// The filter the options describe: kernel (with JSON file settings), anchor, border,
// semantics, scale, offset, normalize and the schedule.
ConvolveParams buildParams(const Options& o, const Choices& c)
{
    if (o.kernel.empty()) throw UsageError("no kernel given (-k)");
    KernelSpec spec = loadKernelSpec(o.kernel);

    ConvolveParams p;
    p.kernel = std::move(spec.kernel);
    if (p.kernel.name.empty()) p.kernel.name = "inline";
    if (!o.anchor.empty()) setAnchor(p.kernel, o.anchor);
    p.kernel.validate();
    p.border = c.border;
    p.semantics = o.correlate ? Semantics::Correlation
                  : o.convolve ? Semantics::Convolution
                               : spec.semantics.value_or(Semantics::Convolution);
    p.scale = o.scale.value_or(spec.scale.value_or(1.0));
    p.offset = o.offset.value_or(spec.offset.value_or(0.0));
    if (!std::isfinite(p.scale)) throw Error("scale " + num(p.scale) + " is not a finite number");
    if (!std::isfinite(p.offset)) throw Error("offset " + num(p.offset) + " is not a finite number");
    p.normalize = o.normalize || (!o.noNormalize && spec.normalize.value_or(false));
    p.filterAlpha = o.filterAlpha;
    p.method = c.method;
    p.device = c.device;
    p.threads = o.threads;
    return p;
}

// The engine's side of a run, every check that needs no file done: the kernel, CUDA when it is
// asked for, the --compare run.
RunSetup setupRun(const Options& o, const Choices& c)
{
    RunSetup s;
    ConvolveParams& p = s.params;
    p = buildParams(o, c);
    s.requestedDevice = p.device;

    s.cuda = cudaAvailable(&s.cudaWhy);
    if (p.device == Device::Cuda && !s.cuda) throw Error("CUDA unavailable: " + s.cudaWhy);
    if (p.device == Device::Auto && !s.cuda) {
        p.device = Device::Cpu; // what auto would do, without the engine's notice on stderr
        s.quiet.push_back("running on the CPU: CUDA unavailable (" + s.cudaWhy + ")");
    }

    if (c.compare) {
        s.compare = p;
        std::tie(s.compare->method, s.compare->device) = *c.compare;
        if (s.compare->device == Device::Cuda && !s.cuda)
            throw Error("CUDA unavailable: " + s.cudaWhy + " (--compare)");
    }
    return s;
}

Outcome convolveFile(const Options& o, const Choices& c)
{
    const RunSetup setup = setupRun(o, c);
    Outcome r = outcomeOf(setup);
    const ConvolveParams& p = r.params;

    r.save.map = c.map;
    checkOutputPath(o.input, o.output);
    formatHoldsDepth(o.output, SampleDepth::U8); // an output format that cannot be written, before the input is read

    r.input = Source::load(o.input);
    r.notices = r.input.notices;
    r.save.depth = outputDepth(c.depth, c.map, o.output, r.input.depth(), r.input.channels(), r.input.hasAlpha(), r.notices);

    Image out;
    std::vector<double> totals;
    for (int i = 0; i < o.repeat; ++i) {
        RunReport rep;
        r.input.runInto(p, out, &rep); // the first run allocates the output, later ones reuse it
        totals.push_back(rep.totalMs);
        r.runs.push_back(std::move(rep));
        if (r.runs.size() > Outcome::kKeptRuns) r.runs.pop_front();
        ++r.runCount;
    }
    if (setup.compare) r.diff = compareImages(out, r.input.run(*setup.compare, &r.compareReport));

    saveImage(out, o.output, r.save);
    finishOutcome(r, totals);
    return r;
}

} // namespace

Outcome cli::outcomeOf(const RunSetup& setup)
{
    Outcome r;
    r.params = setup.params;
    r.requestedDevice = setup.requestedDevice;
    r.cuda = setup.cuda;
    r.cudaWhy = setup.cudaWhy;
    r.quiet = setup.quiet;
    return r;
}

void cli::finishOutcome(Outcome& r, const std::vector<double>& totalsMs)
{
    r.medianMs = median(totalsMs);
    const double megapixels = double(r.input.width()) * r.input.height() / 1e6;
    r.mpxPerS = r.medianMs > 0 ? megapixels / (r.medianMs / 1e3) : INFINITY;
    r.rank = kernelRank(r.params.kernel, r.runs.back());
}

Json cli::jsonReport(const std::string& input, const std::string& output, const Outcome& r)
{
    const ConvolveParams& p = r.params;
    const RunReport& rep = r.runs.back();
    Json j;
    j["input"] = {{"path", input}, {"width", r.input.width()}, {"height", r.input.height()},
                  {"channels", r.input.channels()}, {"depth", depthLabel(r.input.depth())}};
    j["output"] = {{"path", output}, {"depth", depthLabel(*r.save.depth)}, {"map", outputMapName(r.save.map)}};
    j["kernel"] = {{"name", p.kernel.name}, {"width", p.kernel.width}, {"height", p.kernel.height},
                   {"anchor", Json::array({p.kernel.ax(), p.kernel.ay()})}, {"sum", p.kernel.sum()},
                   {"rank", r.rank ? Json(r.rank->rank) : Json()},
                   {"singular_values", r.rank ? r.rank->singularValues : std::vector<double>{}}};
    j["border"] = {{"mode", borderName(p.border.mode)}, {"value", p.border.value}};
    j["semantics"] = semanticsName(p.semantics);
    j["method"] = {{"requested", methodName(p.method)}, {"chosen", methodName(rep.method)}, {"reason", rep.reason}};
    Json estimates = Json::array();
    for (const MethodEstimate& e : rep.estimates) {
        Json one = {{"method", methodName(e.method)}, {"estimated_ms", e.ms}};
        if (e.method == Method::Separable) one["rank"] = e.rank;
        estimates.push_back(one);
    }
    j["method"]["estimates"] = estimates;
    j["device"] = {{"requested", deviceName(r.requestedDevice)}, {"chosen", deviceName(rep.device)},
                   {"cuda_available", r.cuda}, {"cuda_reason", r.cuda ? Json() : Json(r.cudaWhy)},
                   {"reason", rep.deviceReason.empty() ? Json() : Json(rep.deviceReason)}};
    j["threads"] = rep.threads;
    j["scale"] = rep.effectiveScale;
    j["offset"] = p.offset;
    Json notices = Json::array();
    for (const auto* list : {&r.quiet, &r.notices, &rep.notices})
        for (const std::string& n : *list) notices.push_back(n);
    j["notices"] = std::move(notices);
    Json runs = Json::array();
    for (const RunReport& run : r.runs) {
        Json stages = Json::array();
        for (const StageTiming& s : run.stages) {
            Json stage = {{"name", s.name}, {"ms", s.ms}};
            if (s.once) stage["once"] = true; // a one-time cost: planning, calibration
            stages.push_back(std::move(stage));
        }
        runs.push_back({{"stages", std::move(stages)}, {"total_ms", run.totalMs}, {"compute_ms", run.computeMs}});
    }
    j["runs"] = std::move(runs);
    j["run_count"] = r.runCount; // "runs" holds the last kKeptRuns of them
    j["median_total_ms"] = r.medianMs;
    j["mpx_per_s"] = r.mpxPerS; // null when too fast to time
    if (r.diff)
        j["compare"] = {{"method", methodName(r.compareReport.method)}, {"device", deviceName(r.compareReport.device)},
                        {"max_abs", r.diff->maxAbs}, {"mean_abs", r.diff->meanAbs}, {"rmse", r.diff->rmse},
                        {"psnr", r.diff->psnr}, // null when identical (+inf)
                        {"max_at", Json::array({r.diff->maxX, r.diff->maxY, r.diff->maxC})},
                        // the statistics cover the values finite in both; NaN and infinities are counted
                        {"finite_both", r.diff->finiteBoth}, {"non_finite_a", r.diff->nonFiniteA},
                        {"non_finite_b", r.diff->nonFiniteB}, {"non_finite_mismatch", r.diff->nonFiniteMismatch}};
    return j;
}

namespace {

void printSummary(const Options& o, const Outcome& r)
{
    const ConvolveParams& p = r.params;
    const RunReport& rep = r.runs.back();
    const Source& in = r.input;
    // Notices (the output depth chosen, a zero-sum kernel left unnormalized, ...) are warnings:
    // stderr.
    for (const auto* list : {&r.notices, &rep.notices})
        for (const std::string& n : *list) note(n);
    std::string alpha;
    if (in.hasAlpha()) alpha = p.filterAlpha ? " (alpha filtered)" : " (alpha passed through)";
    std::cout << "input    " << o.input << ": " << in.width() << 'x' << in.height() << ", " << in.channels()
              << (in.channels() == 1 ? " channel" : " channels") << alpha << ", " << depthLabel(in.depth()) << '\n';
    std::cout << "kernel   " << p.kernel.name << ' ' << p.kernel.width << 'x' << p.kernel.height << ", anchor ("
              << p.kernel.ax() << ',' << p.kernel.ay() << "), sum " << num(p.kernel.sum(), 6);
    if (r.rank) std::cout << ", rank " << r.rank->rank;
    std::cout << '\n';
    std::cout << "border   " << borderName(p.border.mode)
              << (p.border.mode == BorderMode::Constant ? "(" + num(p.border.value, 6) + ")" : "") << ", "
              << semanticsName(p.semantics) << ", scale " << num(rep.effectiveScale, 6) << ", offset "
              << num(p.offset, 6) << '\n';
    std::cout << "method   " << methodName(rep.method) << " on " << deviceName(rep.device) << ", " << rep.threads
              << (rep.threads == 1 ? " thread" : " threads") << (rep.reason.empty() ? "" : " (" + rep.reason + ")")
              << '\n';
    std::cout << "time     " << num(r.medianMs) << " ms"
              << (r.runCount > 1 ? " median of " + std::to_string(r.runCount) + " runs" : "") << ", "
              << num(r.mpxPerS) << " Mpx/s\n";
    if (r.diff)
        std::cout << "compare  " << methodName(r.compareReport.method) << " on " << deviceName(r.compareReport.device)
                  << ": max |diff| " << num(r.diff->maxAbs) << " at (" << r.diff->maxX << ',' << r.diff->maxY << ','
                  << r.diff->maxC << "), mean " << num(r.diff->meanAbs) << ", rmse " << num(r.diff->rmse)
                  << ", PSNR " << num(r.diff->psnr) << " dB"
                  << (r.diff->nonFiniteA || r.diff->nonFiniteB
                          ? "; non-finite values: " + std::to_string(r.diff->nonFiniteA) + " in the result, " +
                                std::to_string(r.diff->nonFiniteB) + " in " + methodName(r.compareReport.method) +
                                "'s, " + std::to_string(r.diff->nonFiniteMismatch) + " not matched"
                          : std::string())
                  << '\n';
    std::cout << "output   " << o.output << " (" << depthLabel(*r.save.depth)
              << (*r.save.depth == SampleDepth::F32 ? "" : ", map " + outputMapName(r.save.map)) << ")\n";
}

// ---- teaching modes: --probe, --analyze, --export, --pad-preview ----

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

std::string symmetryText(const KernelAnalysis& a)
{
    const auto axis = [](bool even, bool odd, const char* name) -> std::string {
        return std::string(even && odd ? "zero" : even ? "even" : odd ? "odd" : "no symmetry") + " in " + name;
    };
    return axis(a.evenX, a.oddX, "x") + ", " + axis(a.evenY, a.oddY, "y");
}

// The grid on which a designed kernel's response is compared with its ideal.
constexpr int kDesignFitGrid = 128;

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

// -O DIR: every positional and every line of --inputs is an input.
int runBatchMode(const Options& o, const Choices& c)
{
    BatchJob job;
    job.setup = setupRun(o, c); // the kernel and the device, before any image is read
    for (const std::string* p : {&o.input, &o.output})
        if (!p->empty()) job.inputs.push_back(*p);
    job.inputs.insert(job.inputs.end(), o.more.begin(), o.more.end());
    if (!o.inputList.empty()) {
        const std::vector<std::string> listed = readInputList(o.inputList);
        job.inputs.insert(job.inputs.end(), listed.begin(), listed.end());
    }
    if (job.inputs.empty()) throw UsageError("-O needs inputs: INPUT... or --inputs LIST");
    job.outputs = batchOutputs(job.inputs, o.outDir, o.format);
    job.depth = c.depth;
    job.map = c.map;
    job.json = o.json;
    return runBatch(job);
}

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

constexpr const char* kFooterKernel = R"(Kernel SPEC:
  "1 2 1; 2 4 2; 1 2 1"   rows separated by ';' (or newlines), values by spaces or commas;
                          fractions like 1/16 are allowed
  FILE.txt | FILE.json    a kernel file; a JSON file may also set scale, offset, normalize,
                          semantics and anchor, which the options here override
  preset:NAME[:k=v,...]   a built-in kernel (see --list-presets); designed filters take
                          cut-offs in cycles/pixel, e.g. preset:lowpass:cutoff=0.1,size=15,
                          window=kaiser,beta=8.6,shape=radial or preset:bandpass:f1=0.1,f2=0.3
)";

// "constant[:VALUE] | replicate | ..." and "auto | direct | ...", from the tables of modes.h.
std::string borderChoices()
{
    std::string out;
    for (const BorderModeInfo& m : borderModes())
        out += (out.empty() ? "" : " | ") + std::string(m.name) + (m.takesValue ? "[:VALUE]" : "");
    return out;
}
std::string methodChoices()
{
    std::string out;
    for (const MethodInfo& m : methods()) out += (out.empty() ? "" : " | ") + std::string(m.name);
    return out;
}

// One help entry: the name in a column of `width`, then the lines, each under the first.
std::string helpEntry(const std::string& name, std::size_t width, const std::vector<std::string>& lines)
{
    std::string out = "  " + name + std::string(name.size() < width ? width - name.size() : 1, ' ');
    for (std::size_t i = 0; i < lines.size(); ++i)
        out += (i ? std::string(width + 2, ' ') : std::string()) + lines[i] + '\n';
    return out;
}

// Words joined by ", " in lines of at most `width` characters.
std::vector<std::string> wrapList(const std::string& first, std::span<const char* const> words, std::size_t width)
{
    std::vector<std::string> lines{first};
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string word = std::string(words[i]) + (i + 1 < words.size() ? "," : "");
        if (lines.back().size() + 1 + word.size() > width) lines.emplace_back();
        lines.back() += (lines.back().empty() ? "" : " ") + word;
    }
    return lines;
}

std::string modesAndMethodsHelp()
{
    constexpr std::size_t kColumn = 18, kWidth = 70;
    std::string out = "Border modes (default reflect; docs/semantics.md, Border modes):\n";
    for (const BorderModeInfo& m : borderModes()) {
        const std::string name = std::string(m.name) + (m.takesValue ? "[:VALUE]" : "");
        std::vector<std::string> lines{std::string(m.rule) + (m.takesValue ? " (c = VALUE, 0 unless given)" : "")};
        if (!m.aliases.empty())
            for (std::string& l : wrapList("also", m.aliases, kWidth)) lines.push_back(std::move(l));
        out += helpEntry(name, kColumn, lines);
    }
    out += "  Names are matched ignoring case, with '-' and ' ' read as '_'.\n";
    out += "Methods (default auto):\n";
    for (const MethodInfo& m : methods()) out += helpEntry(m.name, kColumn, {m.description});
    return out;
}

constexpr const char* kFooterRest = R"(Files: .npy (float32/float64/uint8/uint16) and, when built with them, PNG, JPEG, TIFF, BMP,
  PNM, WebP. Values keep the file's scale (0..255, 0..65535, floats as they are).
Teaching and comparison (these replace the ordinary run):
  convlab-cli INPUT [OUTPUT] --probe X,Y -k SPEC [--channel C]   how one output value comes
                          about: neighbourhood, applied kernel, products, sum, scale, offset
  convlab-cli --analyze -k SPEC [--response FILE [--response-size N] [--log]]   sum, symmetry,
                          rank and factors, low/high/band-pass; FILE gets |H| (zero frequency
                          at the centre; image files min-max normalized, .npy/.tif floats)
  convlab-cli --export scipy|opencv-python|opencv-cpp|cupy|dask -k SPEC [-b ...] [--correlate] ...
                          a snippet that reproduces the result with that library
  convlab-cli INPUT OUTPUT --pad-preview MARGIN [-b MODE]   the image extended by the border rule
  convlab-cli SOURCE FILTERED --estimate-kernel WxH [--correlate] [--anchor X,Y] [-b MODE]
                          [--ridge LAMBDA] [-o FILE.json]   the WxH kernel (up to 31x31) that maps
                          SOURCE to FILTERED best (least squares): printed as kernel text with
                          the residual RMSE; the interior only unless -b gives a border mode;
                          -o saves it as a kernel file (docs/semantics.md, Kernel estimation)
Batch mode (docs/cli.md, Batch mode):
  convlab-cli -k SPEC IN1 IN2 ... -O DIR [--inputs LIST] [--format EXT] [options]
                          one process filters every input, in order, into DIR under its own
                          file name (--format EXT: with that extension); decoding, filtering and
                          writing overlap. LIST holds one path a line ('-': stdin). DIR must
                          exist; two inputs with the same output name are refused before any
                          is read. A bad input is skipped with a message and the rest go on.
                          --json: one JSON object a line per image, then {"summary": ...}.
                          A progress bar on stderr when it is a terminal. Not with --probe,
                          --analyze, --export, --pad-preview, --estimate-kernel or --repeat.
Output depth: --depth, else 32f for .npy, else the input's when the output format holds it,
  else the deepest it holds (float input to .png: 16-bit, 0..1 to 0..65535), with a note.
  Decided, like the output format, before anything is computed.
Tables: convlab-cli --list border-modes|methods [--json]   one line a mode or method (--json:
  every field, with the other libraries' names and the tolerances)
Exit status: 0 success, 1 error (one line on stderr; the output file is left untouched),
  2 bad command line (unknown option, option value or name; missing argument; in batch mode
  also two inputs with one output name), 3 batch mode: some inputs were skipped (each said on
  stderr), the others written.)";

std::string helpFooter() { return kFooterKernel + modesAndMethodsHelp() + kFooterRest; }

} // namespace

int runCli(int argc, char** argv)
{
    removeTemporariesOnInterrupt(kProgram); // Ctrl+C while the output is written leaves nothing behind, says so
    Options o;
    CLI::App app{"Convolves (or correlates) an image with a kernel on the CPU or the GPU.", kProgram};
    app.footer(helpFooter());
    app.add_option("INPUT", o.input, "input image (.npy or an image file)");
    app.add_option("OUTPUT", o.output, "output file, written atomically; its extension picks the format (with -O: "
                                       "another input)");
    app.add_option("MORE", o.more, "with -O: more inputs");
    CLI::Option* kernelOpt = app.add_option("-k,--kernel", o.kernel, "kernel: inline text, FILE.txt, FILE.json or preset:NAME[:k=v,...]")
        ->type_name("SPEC");
    CLI::Option* borderOpt = app.add_option("-b,--border", o.border, borderChoices())
        ->type_name("MODE")
        ->capture_default_str();
    app.add_flag("--correlate", o.correlate, "correlation instead of convolution")
        ->excludes(app.add_flag("--convolve", o.convolve, "convolution (the default; overrides a kernel file)"));
    app.add_option("--anchor", o.anchor, "kernel anchor (default: floor(w/2),floor(h/2))")->type_name("X,Y");
    app.add_option("--scale", o.scale, "multiply the result by S (default 1)")->type_name("S");
    app.add_option("--offset", o.offset, "add O to the scaled result (default 0)")->type_name("O");
    app.add_flag("--normalize", o.normalize, "scale by 1/sum(kernel) (zero-sum kernels are left alone)")
        ->excludes(app.add_flag("--no-normalize", o.noNormalize, "do not normalize (overrides a kernel file)"));
    app.add_option("-m,--method", o.method, methodChoices())
        ->type_name("NAME")
        ->capture_default_str();
    app.add_option("-d,--device", o.device, "auto | cpu | cuda")->type_name("NAME")->capture_default_str();
    app.add_option("--threads", o.threads, "CPU threads (0: all)")->type_name("N")->check(CLI::Range(0, 4096));
    app.add_option("--map", o.map, "float to integer samples: clamp | abs | normalize | offset")
        ->type_name("NAME")
        ->capture_default_str();
    app.add_option("--depth", o.depth, "output depth: 8 | 16 | 32f (default: 32f for .npy, else the input's or the "
                                       "deepest the output format holds)")
        ->type_name("D");
    CLI::Option* repeatOpt = app.add_option("--repeat", o.repeat, "run N times (timings of each), write the last result")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--compare", o.compare, "also run method M on device D (default cpu) and report the difference")
        ->type_name("M[@D]");
    app.add_flag("--json", o.json, "report as one JSON object on stdout");
    app.add_flag("--filter-alpha", o.filterAlpha, "filter the alpha channel too (default: passed through)");
    app.add_flag("--list-presets", o.listPresets, "list the built-in kernels and exit");
    app.add_option("--list", o.list,
                   "list the border modes or the methods (name, rule or description, aliases; with --json every "
                   "field of the table) and exit")
        ->type_name("border-modes|methods");
    app.add_flag("--version", o.version, "print the version and the available backends and exit");
    CLI::Option* probe =
        app.add_option("--probe", o.probe, "explain the output value at pixel X,Y (OUTPUT optional)")->type_name("X,Y");
    app.add_option("--channel", o.channel, "channel for --probe (default 0)")->type_name("C")->needs(probe);
    CLI::Option* analyze = app.add_flag("--analyze", o.analyze, "analyze the kernel (no INPUT/OUTPUT)");
    CLI::Option* response =
        app.add_option("--response", o.response, "with --analyze: write the magnitude response |H| to FILE")
            ->type_name("FILE")
            ->needs(analyze);
    app.add_option("--response-size", o.responseSize, "response grid size (default 256)")
        ->type_name("N")
        ->check(CLI::Range(2, kMaxResponseSize))
        ->needs(response);
    app.add_flag("--log", o.logResponse, "response in dB (20 log10 |H|)")->needs(response);
    CLI::Option* exportOpt =
        app.add_option("--export", o.exportTarget, "print code for " + exportTargetNames(" | "))
            ->type_name("TARGET");
    CLI::Option* pad = app.add_option("--pad-preview", o.padMargin, "write INPUT extended by MARGIN with the border rule")
                           ->type_name("MARGIN")
                           ->check(CLI::Range(0, kMaxImageSide));
    CLI::Option* estimate =
        app.add_option("--estimate-kernel", o.estimateSize,
                       "estimate the WxH kernel mapping INPUT (source) to OUTPUT (filtered image)")
            ->type_name("WxH")
            ->excludes(kernelOpt);
    app.add_option("--ridge", o.ridge, "with --estimate-kernel: ridge weight >= 0, relative to the source's power")
        ->type_name("LAMBDA")
        ->needs(estimate);
    app.add_option("-o,--save-kernel", o.saveKernel, "with --estimate-kernel: save the kernel to FILE (.json or text)")
        ->type_name("FILE")
        ->needs(estimate);
    CLI::Option* outDir =
        app.add_option("-O,--output-dir", o.outDir,
                       "batch mode: every positional is an input, each written to DIR under its file name")
            ->type_name("DIR");
    app.add_option("--inputs", o.inputList, "with -O: more inputs, one path a line from LIST ('-': stdin)")
        ->type_name("LIST")
        ->needs(outDir);
    app.add_option("--format", o.format, "with -O: give the outputs this extension (png, .npy, ...) instead of the "
                                         "input's")
        ->type_name("EXT")
        ->needs(outDir);
    const std::vector<CLI::Option*> modes{probe, analyze, exportOpt, pad, estimate};
    for (CLI::Option* a : modes)
        for (CLI::Option* b : modes)
            if (a != b) a->excludes(b);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e); // --help
        return fail(std::string(e.what()) + " (see --help)", 2);
    }

    try {
        if (!o.list.empty()) {
            printList(o.list, o.json);
            return 0;
        }
        if (o.listPresets) {
            printPresets();
            return 0;
        }
        if (o.version) {
            printVersion();
            return 0;
        }
        o.borderGiven = borderOpt->count() > 0;
        const Choices c = parseChoices(o); // every named value, before any file is read
        if (outDir->count() > 0) {
            const std::vector<std::pair<const CLI::Option*, const char*>> singleOnly{
                {probe, "--probe"}, {analyze, "--analyze"}, {exportOpt, "--export"}, {pad, "--pad-preview"},
                {estimate, "--estimate-kernel"}, {repeatOpt, "--repeat"}};
            for (const auto& [option, name] : singleOnly)
                if (option->count() > 0)
                    return fail(std::string(name) + " works on one image and cannot be combined with -O (batch mode) "
                                                    "(see --help)", kExitUsage);
            return runBatchMode(o, c);
        }
        if (!o.more.empty())
            return fail("more than one OUTPUT: to filter several inputs into a folder, give -O DIR (see --help)",
                        kExitUsage);
        if (o.analyze || c.exportTarget) {
            if (!o.input.empty())
                return fail(std::string(o.analyze ? "--analyze" : "--export") + " takes no INPUT or OUTPUT (see --help)", 2);
            return o.analyze ? runAnalyze(o, c) : runExport(o, c);
        }
        if (!o.probe.empty()) {
            if (o.input.empty()) return fail("--probe needs INPUT (see --help)", 2);
            return runProbe(o, c);
        }
        if (!o.estimateSize.empty()) {
            if (o.input.empty() || o.output.empty())
                return fail("--estimate-kernel needs SOURCE and FILTERED (see --help)", 2);
            return runEstimate(o, c);
        }
        if (o.input.empty() || o.output.empty()) return fail("INPUT and OUTPUT are required (see --help)", 2);
        if (o.padMargin) return runPadPreview(o, c);
        const Outcome outcome = convolveFile(o, c);
        if (o.json) std::cout << jsonReport(o.input, o.output, outcome).dump(2) << '\n';
        else printSummary(o, outcome);
        return 0;
    } catch (const UsageError& e) {
        return fail(std::string(e.what()) + " (see --help)", 2);
    } catch (const std::bad_alloc&) {
        return fail("out of memory", 1);
    } catch (const std::exception& e) {
        return fail(e.what(), 1);
    }
}

} // namespace convlab
