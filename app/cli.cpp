// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli: parses the command line, runs the engine and reports what it did, as a short
// text summary or as one JSON object. Every failure is one line on stderr and exit status 1
// (2 for a bad command line: an unknown option, option value or name, a missing argument);
// every option value is checked before any file is read, and the output format and depth before
// anything is computed. The output file is only ever written, atomically, after a good run.
// With -O DIR (batch mode, batch.cpp) every positional is an input and a bad input is skipped
// while the others go on (exit status 3 when any was).
// The teaching modes are in cli_tools.cpp; the tables, --version and the help text are in
// cli_help.cpp; the JSON object and the text summary of a run in cli_report.cpp.
#include "cli.h"

#include "batch.h"
#include "cli_interrupt.h"
#include "cli_internal.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <deque>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "convlab/analysis.h"
#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/export.h"
#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"

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

// Whether the command line asked for --json: then a failure is also one JSON object on stdout,
// {"error": "...", "exit_status": N}, so that a script reading stdout gets an answer either way.
// Read from argv before parsing, so that a command line that does not parse says so too.
bool gJsonErrors = false;

int fail(const std::string& message, int status)
{
    std::cerr << kProgram << ": error: " << oneLine(message) << '\n';
    if (gJsonErrors) std::cout << Json{{"error", message}, {"exit_status", status}}.dump() << std::endl;
    return status;
}

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

SampleDepth parseDepth(const std::string& text)
{
    if (text == "8") return SampleDepth::U8;
    if (text == "16") return SampleDepth::U16;
    if (text == "32f") return SampleDepth::F32;
    throw UsageError("unknown --depth '" + text + "' (expected 8, 16 or 32f)");
}

bool isNpy(const std::string& path)
{
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext == ".npy";
}

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

void cli::note(const std::string& message) { std::cerr << kProgram << ": note: " << oneLine(message) << '\n'; }

std::string cli::num(double v, int precision)
{
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    return buf;
}

std::string cli::semanticsName(Semantics s) { return s == Semantics::Correlation ? "correlation" : "convolution"; }

std::pair<int, int> cli::parsePair(const std::string& text, const std::string& what, const char* separators,
                                   const char* form)
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

void cli::setAnchor(Kernel& k, const std::string& text)
{
    const auto [x, y] = parsePair(text, "--anchor");
    if (x < 0 || y < 0 || x >= k.width || y >= k.height)
        throw UsageError("bad --anchor '" + text + "': outside the " + std::to_string(k.width) + "x" +
                    std::to_string(k.height) + " kernel");
    k.anchorX = x;
    k.anchorY = y;
}

void cli::checkOutputPath(const std::string& input, const std::string& output)
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

ConvolveParams cli::buildParams(const Options& o, const Choices& c)
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

namespace {

// "auto | cpu | cuda": the backends' names, auto first.
std::string backendNames()
{
    std::string names = deviceName(Device::Auto);
    for (const BackendInfo& b : backends())
        if (b.device != Device::Auto) names += std::string(" | ") + b.name;
    return names;
}

// Whether backend `device` can run here (the CPU and auto always can); why not in `why`.
bool canRun(Device device, std::string* why)
{
    const BackendInfo& b = backendInfo(device);
    return !b.available || b.available(why);
}

// An explicit backend that cannot run here is an error before any file is read.
void requireBackend(Device device, const char* what)
{
    std::string why;
    if (!canRun(device, &why)) throw Error(backendInfo(device).label + std::string(" unavailable: ") + why + what);
}

// The engine's side of a run, every check that needs no file done: the kernel, the backend when
// one is asked for, the --compare run.
RunSetup setupRun(const Options& o, const Choices& c)
{
    RunSetup s;
    ConvolveParams& p = s.params;
    p = buildParams(o, c);
    s.requestedDevice = p.device;

    s.cuda = cudaAvailable(&s.cudaWhy); // for the report
    requireBackend(p.device, "");
    if (p.device == Device::Auto) {
        std::string reasons;
        bool gpu = false;
        for (const BackendInfo& b : backends()) {
            if (!b.startSession) continue;
            std::string why;
            if (canRun(b.device, &why)) gpu = true;
            else reasons += (reasons.empty() ? "" : "; ") + std::string(b.label) + " unavailable (" + why + ")";
        }
        if (!gpu) {
            p.device = Device::Cpu; // what auto would do, without the engine's notice on stderr
            s.quiet.push_back("running on the CPU: " + reasons);
        }
    }

    if (c.compare) {
        s.compare = p;
        std::tie(s.compare->method, s.compare->device) = *c.compare;
        requireBackend(s.compare->device, " (--compare)");
    }
    return s;
}

// A method asked for by name (-m) whose CPU estimate is over --max-seconds is refused before
// anything runs, with the estimate and the fastest method named, unless --force says to run it:
// a full-rank 1025x1025 kernel's separable passes over a 4096-pixel line take minutes where the
// FFT takes a fraction of a second. Auto picks the fastest and is not refused; a CUDA run has
// no CPU estimate to judge by. Returns the asked method's estimate in seconds (below 0: none),
// for the elapsed-time line of a run that goes ahead.
double refuseOverBudget(const Options& o, const ConvolveParams& p, const Source& input)
{
    const BudgetVerdict v =
        judgeBudget(p, input.width(), input.height(), input.channels(), input.hasAlpha(), o.force ? std::numeric_limits<double>::infinity() : o.maxSeconds);
    if (!v.over) return v.askedSeconds;
    std::string text = "-m " + methodName(p.method) + " is estimated at " + num(v.askedSeconds, 3) + " s on this CPU, over " +
                       "--max-seconds " + num(o.maxSeconds, 6);
    if (v.fastest != p.method) text += "; " + methodName(v.fastest) + " is estimated at " + num(v.fastestSeconds, 3) + " s";
    throw Error(text + ": pass --force to run it anyway, or -m " + methodName(v.fastest) + " (or auto)");
}

// A run that a signal stopped (cli_interrupt.h).
struct Interrupted {
    int signal;
};

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

    const double estimateS = refuseOverBudget(o, p, r.input);
    Image out;
    std::vector<double> totals;
    {
        // Ctrl-C while it computes stops the run at its next check, and nothing is written; a
        // signal during the write is the process's handler's (it removes the temporary).
        const InterruptStops interrupt;
        ConvolveParams run = p;
        run.cancel = interrupt.flag();
        const ElapsedLine elapsed(methodName(p.method), estimateS);
        try {
            for (int i = 0; i < o.repeat; ++i) {
                RunReport rep;
                r.input.runInto(run, out, &rep); // the first run allocates the output, later ones reuse it
                totals.push_back(rep.totalMs);
                r.runs.push_back(std::move(rep));
                if (r.runs.size() > Outcome::kKeptRuns) r.runs.pop_front();
                ++r.runCount;
            }
            if (setup.compare) {
                ConvolveParams other = *setup.compare;
                other.cancel = interrupt.flag();
                r.diff = compareImages(out, r.input.run(other, &r.compareReport));
            }
        } catch (const Cancelled&) {
            throw Interrupted{interrupt.signal()};
        }
        if (interrupt.signal()) throw Interrupted{interrupt.signal()}; // after the last check
    }

    saveImage(out, o.output, r.save);
    finishOutcome(r, totals);
    return r;
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

} // namespace

int runCli(int argc, char** argv)
{
    removeTemporariesOnInterrupt(kProgram); // Ctrl+C while the output is written leaves nothing behind, says so
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--json") gJsonErrors = true;
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
    app.add_option("-d,--device", o.device, backendNames())->type_name("NAME")->capture_default_str();
    app.add_option("--threads", o.threads, "CPU threads (0: all)")->type_name("N")->check(CLI::Range(0, 4096));
    app.add_option("--map", o.map, "float to integer samples: clamp | abs | normalize | offset")
        ->type_name("NAME")
        ->capture_default_str();
    app.add_option("--depth", o.depth, "output depth: 8 | 16 | 32f (default: 32f for .npy, else the input's or the "
                                       "deepest the output format holds)")
        ->type_name("D");
    app.add_option("--max-seconds", o.maxSeconds,
                   "refuse a method asked for by -m whose estimate is over S seconds (default 300)")
        ->type_name("S")
        ->check(CLI::PositiveNumber);
    app.add_flag("--force", o.force, "run a method asked for by -m even when its estimate is over --max-seconds");
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
    } catch (const Interrupted& e) {
        return fail(interruptedBy(e.signal) + ": the run stopped and nothing was written to '" + o.output + "'",
                    exitStatusFor(e.signal));
    } catch (const std::bad_alloc&) {
        return fail("out of memory", 1);
    } catch (const std::exception& e) {
        return fail(e.what(), 1);
    }
}

} // namespace convlab
