// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli: parses the command line, runs the engine and reports what it did, as a short
// text summary or as one JSON object. Every failure is one line on stderr and exit status 1
// (2 for usage errors); the output file is only ever written, atomically, after a good run.
#include "cli.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/kernel.h"

#ifndef CONVLAB_VERSION
#define CONVLAB_VERSION "unknown"
#endif

namespace convlab {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr const char* kProgram = "convlab-cli";

struct Options {
    std::string input, output, kernel, anchor, depth, compare;
    std::string border = "reflect", method = "auto", device = "auto", map = "clamp";
    // Given explicitly, these override what a JSON kernel file says.
    std::optional<double> scale, offset;
    bool correlate = false, convolve = false, normalize = false, noNormalize = false;
    bool json = false, filterAlpha = false, listPresets = false, version = false;
    int threads = 0, repeat = 1;
};

std::string oneLine(std::string s)
{
    std::replace(s.begin(), s.end(), '\n', ' ');
    return s;
}

int fail(const std::string& message, int status)
{
    std::cerr << kProgram << ": error: " << oneLine(message) << '\n';
    return status;
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
    throw Error("unknown --depth '" + text + "' (expected 8, 16 or 32f)");
}

std::string semanticsName(Semantics s) { return s == Semantics::Correlation ? "correlation" : "convolution"; }

bool isNpy(const std::string& path)
{
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".npy";
}

// "X,Y": whole numbers inside the kernel.
void setAnchor(Kernel& k, const std::string& text)
{
    const auto bad = [&](const std::string& why) { return Error("bad --anchor '" + text + "': " + why); };
    const auto comma = text.find(',');
    if (comma == std::string::npos) throw bad("expected X,Y");
    int xy[2] = {0, 0};
    const std::string parts[2] = {text.substr(0, comma), text.substr(comma + 1)};
    for (int i = 0; i < 2; ++i) {
        const char* first = parts[i].data();
        const char* last = first + parts[i].size();
        const auto [end, ec] = std::from_chars(first, last, xy[i]);
        if (parts[i].empty() || ec != std::errc() || end != last) throw bad("expected X,Y as whole numbers");
    }
    if (xy[0] < 0 || xy[1] < 0 || xy[0] >= k.width || xy[1] >= k.height)
        throw bad("outside the " + std::to_string(k.width) + "x" + std::to_string(k.height) + " kernel");
    k.anchorX = xy[0];
    k.anchorY = xy[1];
}

// Refuses an output that would overwrite the input or land in a folder that does not exist.
void checkOutputPath(const std::string& input, const std::string& output)
{
    std::error_code ec, inEc, outEc;
    const fs::path out(output);
    if (fs::is_directory(out, ec)) throw Error("output '" + output + "' is a folder");
    const fs::path inCanon = fs::weakly_canonical(input, inEc), outCanon = fs::weakly_canonical(out, outEc);
    const bool same = fs::equivalent(input, out, ec) || (!inEc && !outEc && inCanon == outCanon);
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
        for (const PresetParam& q : p.params) s += (s.empty() ? "" : ",") + q.name + "=" + num(q.defaultValue, 6);
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

void printVersion()
{
    std::string why;
    const bool cuda = cudaAvailable(&why);
    std::cout << kProgram << ' ' << CONVLAB_VERSION << '\n'
              << "image formats: "
              << (imageFormatsAvailable() ? "yes (PNG, JPEG, TIFF, BMP, PNM, WebP, .npy)" : "no (.npy only)") << '\n'
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

// Everything a run produced, for the report.
struct Outcome {
    ConvolveParams params;
    SaveOptions save;
    Image input;
    bool cuda = false;
    std::string cudaWhy;
    std::vector<RunReport> runs; // one per --repeat; the last one's result was written
    std::optional<DiffStats> diff;
    RunReport compareReport;
    std::optional<SvdInfo> rank;
    double medianMs = 0.0;
    double mpxPerS = 0.0;
};

Outcome convolveFile(const Options& o)
{
    if (o.kernel.empty()) throw Error("no kernel given (-k)");
    KernelSpec spec = loadKernelSpec(o.kernel);

    Outcome r;
    ConvolveParams& p = r.params;
    p.kernel = std::move(spec.kernel);
    if (p.kernel.name.empty()) p.kernel.name = "inline";
    if (!o.anchor.empty()) setAnchor(p.kernel, o.anchor);
    p.kernel.validate();
    p.border = parseBorder(o.border);
    p.semantics = o.correlate ? Semantics::Correlation
                  : o.convolve ? Semantics::Convolution
                               : spec.semantics.value_or(Semantics::Convolution);
    p.scale = o.scale.value_or(spec.scale.value_or(1.0));
    p.offset = o.offset.value_or(spec.offset.value_or(0.0));
    if (!std::isfinite(p.scale)) throw Error("scale " + num(p.scale) + " is not a finite number");
    if (!std::isfinite(p.offset)) throw Error("offset " + num(p.offset) + " is not a finite number");
    p.normalize = o.normalize || (!o.noNormalize && spec.normalize.value_or(false));
    p.filterAlpha = o.filterAlpha;
    p.method = parseMethod(o.method);
    p.device = parseDevice(o.device);
    p.threads = o.threads;

    r.cuda = cudaAvailable(&r.cudaWhy);
    if (p.device == Device::Cuda && !r.cuda) throw Error("CUDA unavailable: " + r.cudaWhy);

    std::optional<ConvolveParams> compare;
    if (!o.compare.empty()) {
        const auto at = o.compare.find('@');
        compare = p;
        compare->method = parseMethod(o.compare.substr(0, at));
        compare->device = at == std::string::npos ? Device::Cpu : parseDevice(o.compare.substr(at + 1));
        if (compare->device == Device::Cuda && !r.cuda)
            throw Error("CUDA unavailable: " + r.cudaWhy + " (--compare)");
    }

    r.save.map = parseOutputMap(o.map);
    if (!o.depth.empty()) r.save.depth = parseDepth(o.depth);
    checkOutputPath(o.input, o.output);

    r.input = loadImage(o.input);
    if (!r.save.depth) r.save.depth = isNpy(o.output) ? SampleDepth::F32 : r.input.depth;

    Image out;
    std::vector<double> totals;
    for (int i = 0; i < o.repeat; ++i) {
        RunReport rep;
        out = convolve(r.input, p, &rep);
        totals.push_back(rep.totalMs);
        r.runs.push_back(std::move(rep));
    }
    if (compare) r.diff = compareImages(out, convolve(r.input, *compare, &r.compareReport));

    saveImage(out, o.output, r.save);

    r.medianMs = median(totals);
    const double megapixels = double(r.input.width) * r.input.height / 1e6;
    r.mpxPerS = r.medianMs > 0 ? megapixels / (r.medianMs / 1e3) : INFINITY;
    r.rank = kernelRank(p.kernel, r.runs.back());
    return r;
}

Json jsonReport(const Options& o, const Outcome& r)
{
    const ConvolveParams& p = r.params;
    const RunReport& rep = r.runs.back();
    Json j;
    j["input"] = {{"path", o.input}, {"width", r.input.width}, {"height", r.input.height},
                  {"channels", r.input.channels}, {"depth", depthLabel(r.input.depth)}};
    j["output"] = {{"path", o.output}, {"depth", depthLabel(*r.save.depth)}, {"map", outputMapName(r.save.map)}};
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
    j["device"] = {{"requested", deviceName(p.device)}, {"chosen", deviceName(rep.device)},
                   {"cuda_available", r.cuda}, {"cuda_reason", r.cuda ? Json() : Json(r.cudaWhy)}};
    j["threads"] = rep.threads;
    j["scale"] = rep.effectiveScale;
    j["offset"] = p.offset;
    j["notices"] = rep.notices;
    Json runs = Json::array();
    for (const RunReport& run : r.runs) {
        Json stages = Json::array();
        for (const StageTiming& s : run.stages) stages.push_back({{"name", s.name}, {"ms", s.ms}});
        runs.push_back({{"stages", std::move(stages)}, {"total_ms", run.totalMs}});
    }
    j["runs"] = std::move(runs);
    j["median_total_ms"] = r.medianMs;
    j["mpx_per_s"] = r.mpxPerS; // null when too fast to time
    if (r.diff)
        j["compare"] = {{"method", methodName(r.compareReport.method)}, {"device", deviceName(r.compareReport.device)},
                        {"max_abs", r.diff->maxAbs}, {"mean_abs", r.diff->meanAbs}, {"rmse", r.diff->rmse},
                        {"psnr", r.diff->psnr}, // null when identical (+inf)
                        {"max_at", Json::array({r.diff->maxX, r.diff->maxY, r.diff->maxC})}};
    return j;
}

void printSummary(const Options& o, const Outcome& r)
{
    const ConvolveParams& p = r.params;
    const RunReport& rep = r.runs.back();
    const Image& in = r.input;
    // Notices (CPU fallback, zero-sum kernel left unnormalized, ...) are warnings: stderr.
    for (const std::string& n : rep.notices) std::cerr << kProgram << ": note: " << n << '\n';
    std::string alpha;
    if (in.hasAlpha) alpha = p.filterAlpha ? " (alpha filtered)" : " (alpha passed through)";
    std::cout << "input    " << o.input << ": " << in.width << 'x' << in.height << ", " << in.channels
              << (in.channels == 1 ? " channel" : " channels") << alpha << ", " << depthLabel(in.depth) << '\n';
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
              << (r.runs.size() > 1 ? " median of " + std::to_string(r.runs.size()) + " runs" : "") << ", "
              << num(r.mpxPerS) << " Mpx/s\n";
    if (r.diff)
        std::cout << "compare  " << methodName(r.compareReport.method) << " on " << deviceName(r.compareReport.device)
                  << ": max |diff| " << num(r.diff->maxAbs) << " at (" << r.diff->maxX << ',' << r.diff->maxY << ','
                  << r.diff->maxC << "), mean " << num(r.diff->meanAbs) << ", rmse " << num(r.diff->rmse)
                  << ", PSNR " << num(r.diff->psnr) << " dB\n";
    std::cout << "output   " << o.output << " (" << depthLabel(*r.save.depth)
              << (*r.save.depth == SampleDepth::F32 ? "" : ", map " + outputMapName(r.save.map)) << ")\n";
}

constexpr const char* kFooter = R"(Kernel SPEC:
  "1 2 1; 2 4 2; 1 2 1"   rows separated by ';' (or newlines), values by spaces or commas;
                          fractions like 1/16 are allowed
  FILE.txt | FILE.json    a kernel file; a JSON file may also set scale, offset, normalize,
                          semantics and anchor, which the options here override
  preset:NAME[:k=v,...]   a built-in kernel (see --list-presets)
Border modes (default reflect): constant[:VALUE] (0 unless given), replicate, reflect
  (cba|abcd|dcb), mirror (dcb|abcd|cba), wrap; OpenCV, scipy, MATLAB and GIMP names
  are accepted too (nearest, symmetric, reflect101, circular, ...).
Files: .npy (float32/float64/uint8/uint16) and, when built with them, PNG, JPEG, TIFF, BMP,
  PNM, WebP. Values keep the file's scale (0..255, 0..65535, floats as they are).
Exit status: 0 success, 1 error (one line on stderr; the output file is left untouched),
  2 bad command line.)";

} // namespace

int runCli(int argc, char** argv)
{
    Options o;
    CLI::App app{"Convolves (or correlates) an image with a kernel on the CPU or the GPU.", kProgram};
    app.footer(kFooter);
    app.add_option("INPUT", o.input, "input image (.npy or an image file)");
    app.add_option("OUTPUT", o.output, "output file, written atomically; its extension picks the format");
    app.add_option("-k,--kernel", o.kernel, "kernel: inline text, FILE.txt, FILE.json or preset:NAME[:k=v,...]")
        ->type_name("SPEC");
    app.add_option("-b,--border", o.border, "constant[:VALUE] | replicate | reflect | mirror | wrap")
        ->type_name("MODE")
        ->capture_default_str();
    app.add_flag("--correlate", o.correlate, "correlation instead of convolution")
        ->excludes(app.add_flag("--convolve", o.convolve, "convolution (the default; overrides a kernel file)"));
    app.add_option("--anchor", o.anchor, "kernel anchor (default: floor(w/2),floor(h/2))")->type_name("X,Y");
    app.add_option("--scale", o.scale, "multiply the result by S (default 1)")->type_name("S");
    app.add_option("--offset", o.offset, "add O to the scaled result (default 0)")->type_name("O");
    app.add_flag("--normalize", o.normalize, "scale by 1/sum(kernel) (zero-sum kernels are left alone)")
        ->excludes(app.add_flag("--no-normalize", o.noNormalize, "do not normalize (overrides a kernel file)"));
    app.add_option("-m,--method", o.method, "auto | direct | separable | fft | reference")
        ->type_name("NAME")
        ->capture_default_str();
    app.add_option("-d,--device", o.device, "auto | cpu | cuda")->type_name("NAME")->capture_default_str();
    app.add_option("--threads", o.threads, "CPU threads (0: all)")->type_name("N")->check(CLI::Range(0, 4096));
    app.add_option("--map", o.map, "float to integer samples: clamp | abs | normalize | offset")
        ->type_name("NAME")
        ->capture_default_str();
    app.add_option("--depth", o.depth, "output depth: 8 | 16 | 32f (default: the input's; 32f for .npy)")
        ->type_name("D");
    app.add_option("--repeat", o.repeat, "run N times (timings of each), write the last result")
        ->type_name("N")
        ->check(CLI::Range(1, 1000000));
    app.add_option("--compare", o.compare, "also run method M on device D (default cpu) and report the difference")
        ->type_name("M[@D]");
    app.add_flag("--json", o.json, "report as one JSON object on stdout");
    app.add_flag("--filter-alpha", o.filterAlpha, "filter the alpha channel too (default: passed through)");
    app.add_flag("--list-presets", o.listPresets, "list the built-in kernels and exit");
    app.add_flag("--version", o.version, "print the version and the available backends and exit");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e); // --help
        return fail(std::string(e.what()) + " (see --help)", 2);
    }

    try {
        if (o.listPresets) {
            printPresets();
            return 0;
        }
        if (o.version) {
            printVersion();
            return 0;
        }
        if (o.input.empty() || o.output.empty()) return fail("INPUT and OUTPUT are required (see --help)", 2);
        const Outcome outcome = convolveFile(o);
        if (o.json) std::cout << jsonReport(o, outcome).dump(2) << '\n';
        else printSummary(o, outcome);
        return 0;
    } catch (const std::bad_alloc&) {
        return fail("out of memory", 1);
    } catch (const std::exception& e) {
        return fail(e.what(), 1);
    }
}

} // namespace convlab
