// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli's tables and texts: --list-presets, --list border-modes | methods (for people and
// for scripts), --version, and the help text built from the tables of convlab/modes.h.
#include "cli_internal.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <iostream>
#include <span>
#include <string>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/io.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"

#ifndef CONVLAB_VERSION
#define CONVLAB_VERSION "unknown"
#endif

namespace convlab::cli {

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

namespace {

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

} // namespace

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

namespace {

constexpr const char* kFooterKernel = R"(Kernel SPEC:
  "1 2 1; 2 4 2; 1 2 1"   rows separated by ';' (or newlines), values by spaces or commas;
                          fractions like 1/16 are allowed
  FILE.txt | FILE.json    a kernel file; a JSON file may also set scale, offset, normalize,
                          semantics and anchor, which the options here override
  preset:NAME[:k=v,...]   a built-in kernel (see --list-presets); designed filters take
                          cut-offs in cycles/pixel, e.g. preset:lowpass:cutoff=0.1,size=15,
                          window=kaiser,beta=8.6,shape=radial or preset:bandpass:f1=0.1,f2=0.3
)";

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
NaN and infinities in the input follow IEEE's rule: every weight of the window is multiplied,
  zero weights too (0 * NaN is NaN; docs/semantics.md, Non-finite values). scipy's convolve
  skips zero weights; the Python module does as scipy (zero_taps="skip", docs/python.md).
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
  stderr), the others written; 128 + N stopped by signal N while it computed (130: Ctrl-C),
  nothing written. A terminal on stderr shows how long a run has computed from its first second.)";

} // namespace

std::string helpFooter() { return kFooterKernel + modesAndMethodsHelp() + kFooterRest; }

} // namespace convlab::cli
