// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli's batch mode (docs/cli.md, Batch mode): many inputs filtered by one process into
// one output folder, decoding, filtering and writing on three threads at once. Also what the
// batch shares with the single run of cli.cpp: the decoded input, the outcome of one run and
// its JSON report, so that each image of a batch is reported exactly as a single run is.
#pragma once
#include <nlohmann/json.hpp>

#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "convlab/compare.h"
#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/error.h"
#include "convlab/io.h"

namespace convlab::cli {

using Json = nlohmann::ordered_json;

constexpr const char* kProgram = "convlab-cli";

// Exit statuses (docs/cli.md, Exit status).
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitSomeSkipped = 3; // a batch that skipped at least one input and wrote the others

// A bad command line (exit status 2), as opposed to a bad file or a failed run (1).
struct UsageError : Error {
    using Error::Error;
};

// One terminal line that is safe to print (cli.cpp): newlines become spaces, control bytes \xNN.
std::string oneLine(const std::string& s);

// The input as decoded: 8/16-bit files keep their samples, which the filter converts inside
// its first pass (or the GPU on the device); float files and .npy come as float planes.
struct Source {
    std::optional<PackedImage> packed;
    Image image; // empty when `packed` holds the file

    std::vector<std::string> notices; // what the decoder said about a file that decoded whole

    static Source load(const std::string& path)
    {
        DecodedImage d = decodeImage(path);
        return {std::move(d.samples), std::move(d.image), std::move(d.notices)};
    }
    // Both kinds carry their shape under the same names.
    template <class F> auto visit(F&& f) const { return packed ? f(*packed) : f(image); }
    int width() const { return visit([](const auto& i) { return i.width; }); }
    int height() const { return visit([](const auto& i) { return i.height; }); }
    int channels() const { return visit([](const auto& i) { return i.channels; }); }
    SampleDepth depth() const { return visit([](const auto& i) { return i.depth; }); }
    bool hasAlpha() const { return visit([](const auto& i) { return i.hasAlpha; }); }
    Image run(const ConvolveParams& p, RunReport* report) const
    {
        return visit([&](const auto& i) { return convolve(i, p, report); });
    }
    // Into `out`, whose storage is reused when it has the shape already (repeated runs, the
    // images of a batch).
    void runInto(const ConvolveParams& p, Image& out, RunReport* report) const
    {
        visit([&](const auto& i) { convolveInto(i, p, out, report); });
    }
};

// The engine's side of a run, decided once from the options before any file is read: the
// filter, the device auto resolves to, and the --compare run.
struct RunSetup {
    ConvolveParams params;
    std::optional<ConvolveParams> compare;
    Device requestedDevice = Device::Auto;
    bool cuda = false;
    std::string cudaWhy;
    // Said in the JSON report only: that auto ran on the CPU for want of CUDA is what a machine
    // without a GPU always does.
    std::vector<std::string> quiet;
};

// Everything a run produced, for the report.
struct Outcome {
    ConvolveParams params;
    SaveOptions save;
    Source input;
    Device requestedDevice = Device::Auto;
    bool cuda = false;
    std::string cudaWhy;
    // Said on stderr and in the JSON report (the decoder's, the output depth's); the engine's
    // come with each run. `quiet` ones only go into the JSON report.
    std::vector<std::string> notices, quiet;
    // The reports of the last kKeptRuns runs (the last one's result was written): memory stays
    // bounded whatever --repeat says; the median is over every run.
    static constexpr std::size_t kKeptRuns = 100;
    std::deque<RunReport> runs;
    int runCount = 0;
    std::optional<DiffStats> diff;
    RunReport compareReport;
    std::optional<SvdInfo> rank;
    double medianMs = 0.0;
    double mpxPerS = 0.0;
};

// An Outcome with the setup's engine side filled in (cli.cpp).
Outcome outcomeOf(const RunSetup& setup);
// Rank and throughput once the runs are in (cli.cpp).
void finishOutcome(Outcome& r, const std::vector<double>& totalsMs);
// The single run's --json object (cli.cpp).
Json jsonReport(const std::string& input, const std::string& output, const Outcome& r);
// The output's depth, decided before anything is computed (cli.cpp; docs/cli.md, Output
// depth); throws convlab::Error for a format that cannot hold the image's channels.
SampleDepth outputDepth(std::optional<SampleDepth> depth, OutputMap map, const std::string& output, SampleDepth input,
                        int channels, bool hasAlpha, std::vector<std::string>& notices);

// ---- batch mode ----

// The input list of --inputs: one path a line, from the file or, for "-", from stdin. Blank
// lines are skipped and a line's trailing '\r' is dropped (lists written on Windows); nothing
// else is interpreted, so a path may hold spaces or start with '#'. Throws convlab::Error
// when the file cannot be read.
std::vector<std::string> readInputList(const std::string& list);

// Each input's output in `dir`: its file name, with the extension replaced by `format` when
// one is given ("png" or ".png"). Everything that can be refused before any file is read is
// refused here, with nothing written: a folder that does not exist (Error), an input listed
// twice or two inputs that would write the same name (UsageError), an output format that
// cannot be written (Error), an output that would overwrite one of the inputs (Error).
std::vector<std::string> batchOutputs(const std::vector<std::string>& inputs, const std::string& dir,
                                      const std::string& format);

struct BatchJob {
    std::vector<std::string> inputs, outputs; // outputs[i] is written from inputs[i]
    RunSetup setup;
    std::optional<SampleDepth> depth; // --depth, else each image's own (outputDepth)
    OutputMap map = OutputMap::Clamp;
    bool json = false;
};

// Filters every input, in order, each decoded while the one before is filtered and the one
// before that is written. A bad input is reported and skipped and the others go on. Reports
// one line per image on stdout (text, or a JSON object with --json) and a final summary; a
// progress bar on stderr when it is a terminal. Returns 0, or kExitSomeSkipped when any input
// was skipped.
int runBatch(const BatchJob& job);

} // namespace convlab::cli
