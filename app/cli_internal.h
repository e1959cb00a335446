// SPDX-License-Identifier: GPL-3.0-or-later
// What the parts of convlab-cli share: the options as parsed, their named values checked, and
// the helpers that more than one part uses; the parts are the single run (cli.cpp), the
// teaching modes (cli_tools.cpp) and the tables and help text (cli_help.cpp).
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "batch.h"
#include "convlab/convolve.h"
#include "convlab/export.h"
#include "convlab/io.h"
#include "convlab/kernel.h"

namespace convlab::cli {

struct Options {
    std::string input, output, kernel, anchor, depth, compare;
    std::string border = "reflect", method = "auto", device = "auto", map = "clamp";
    // Given explicitly, these override what a JSON kernel file says.
    std::optional<double> scale, offset;
    bool correlate = false, convolve = false, normalize = false, noNormalize = false;
    bool json = false, filterAlpha = false, listPresets = false, version = false;
    std::string list; // --list border-modes | methods
    int threads = 0, repeat = 1;
    // A method asked for by name whose estimate exceeds this is refused before it runs, unless forced.
    double maxSeconds = 300.0;
    bool force = false;
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

// A notice on stderr, one safe line.
void note(const std::string& message);
// A sample depth as the CLI writes it: "8", "16", "32f".
std::string depthLabel(SampleDepth d);
// The text summary of a single-image run, on stdout (its notices on stderr).
void printSummary(const Options& o, const Outcome& r);

// Shortest readable spelling of a number for the text summary.
std::string num(double v, int precision = 4);

std::string semanticsName(Semantics s);

// "X,Y" (or another `form`, split at any of `separators`): two whole numbers; `what` names the
// option in the message.
std::pair<int, int> parsePair(const std::string& text, const std::string& what, const char* separators = ",",
                              const char* form = "X,Y");

// "X,Y": whole numbers inside the kernel.
void setAnchor(Kernel& k, const std::string& text);

// Refuses an output that would overwrite the input (when there is one) or land in a folder that
// does not exist.
void checkOutputPath(const std::string& input, const std::string& output);

// The filter the options describe: kernel (with JSON file settings), anchor, border,
// semantics, scale, offset, normalize and the schedule.
ConvolveParams buildParams(const Options& o, const Choices& c);

// ---- the teaching modes, each replacing the ordinary run (cli_tools.cpp) ----

int runProbe(const Options& o, const Choices& c);
int runAnalyze(const Options& o, const Choices& c);
int runExport(const Options& o, const Choices& c);
int runPadPreview(const Options& o, const Choices& c);
int runEstimate(const Options& o, const Choices& c);

// ---- --list-presets, --list, --version and the help text (cli_help.cpp) ----

void printPresets();
// --list border-modes | methods, as a table or (json) every field; UsageError for another name.
void printList(const std::string& what, bool json);
void printVersion();
// "constant[:VALUE] | replicate | ..." and "auto | direct | ...", from the tables of modes.h.
std::string borderChoices();
std::string methodChoices();
// The text after the options in --help.
std::string helpFooter();

} // namespace convlab::cli
