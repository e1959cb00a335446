// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel documents: the JSON form, kernel files, and the spec resolver (a preset, a file, or
// inline text or JSON).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "convlab/error.h"
#include "convlab/kernel.h"
#include "io/fsutil.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace convlab {

namespace {

std::string floatText(float v)
{
    // "-0" reads back as the integer 0: a negative zero is written so that it stays one.
    if (v == 0.0f && std::signbit(v)) return "-0.0";
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

std::string sizeText(long long w, long long h) { return std::to_string(w) + "x" + std::to_string(h); }

[[noreturn]] void fail(const std::string& what) { throw Error("kernel JSON: " + what); }

// Compact JSON text of a value for messages and output; invalid UTF-8 is replaced, long text cut.
std::string dumped(const json& v, std::size_t limit = std::string::npos)
{
    std::string s = v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (s.size() > limit) s = s.substr(0, limit) + "...";
    return s;
}

// One entry of "values" (row r, column c; c < 0 for a flat list): a number, or a string
// holding a number or fraction ("1/16").
float jsonValue(const json& v, std::size_t r, long long c)
{
    const auto where = [&] {
        return "values[" + std::to_string(r) + "]" + (c >= 0 ? "[" + std::to_string(c) + "]" : std::string());
    };
    double d = 0.0;
    if (v.is_number()) {
        d = v.get<double>();
    } else if (v.is_string()) {
        const std::string s = v.get<std::string>();
        Kernel one;
        try {
            one = parseKernelText(s);
        } catch (const Error&) {
            fail(where() + " '" + s + "' is not a number or fraction");
        }
        if (one.values.size() != 1) fail(where() + " '" + s + "' is not a single number or fraction");
        return one.values[0];
    } else {
        fail(where() + " must be a number or a fraction string, not " + std::string(v.type_name()));
    }
    if (!std::isfinite(static_cast<float>(d)))
        fail(where() + " (" + dumped(v, 60) + ") is not a finite float value");
    return static_cast<float>(d);
}

// [a, b] of whole numbers no smaller than `minimum`.
std::pair<long long, long long> intPair(const json& v, const char* field, long long minimum, const char* meaning)
{
    const auto ok = [&](const json& e) { return e.is_number_integer() && e.get<long long>() >= minimum; };
    if (!v.is_array() || v.size() != 2 || !ok(v[0]) || !ok(v[1]))
        fail(std::string("'") + field + "' must be " + meaning + ", got " + dumped(v, 60));
    return {v[0].get<long long>(), v[1].get<long long>()};
}

double finiteNumber(const json& v, const char* field)
{
    if (!v.is_number()) fail(std::string("'") + field + "' must be a number, got " + dumped(v, 60));
    return v.get<double>();
}

void readValues(const json& values, std::optional<std::pair<long long, long long>> size, Kernel& k)
{
    if (!values.is_array() || values.empty()) fail("'values' must be a non-empty list, got " + dumped(values, 60));
    if (values[0].is_array()) {
        const std::size_t w = values[0].size();
        for (std::size_t r = 0; r < values.size(); ++r) {
            const json& row = values[r];
            if (!row.is_array())
                fail("values[" + std::to_string(r) + "] must be a list of numbers like values[0], not " +
                     std::string(row.type_name()));
            if (row.size() != w)
                fail("row " + std::to_string(r + 1) + " of 'values' has " + std::to_string(row.size()) +
                     " values, row 1 has " + std::to_string(w));
        }
        if (w == 0) fail("'values' rows are empty");
        if (size && (size->first != static_cast<long long>(w) || size->second != static_cast<long long>(values.size())))
            fail("'size' " + sizeText(size->first, size->second) + " does not match 'values' (" +
                 std::to_string(values.size()) + " rows of " + std::to_string(w) + ")");
        if (w > std::size_t(kMaxKernelSide) || values.size() > std::size_t(kMaxKernelSide))
            fail("kernel " + sizeText(w, values.size()) + " exceeds the " + sizeText(kMaxKernelSide, kMaxKernelSide) +
                 " limit");
        k.width = static_cast<int>(w);
        k.height = static_cast<int>(values.size());
        for (std::size_t r = 0; r < values.size(); ++r)
            for (std::size_t c = 0; c < w; ++c)
                k.values.push_back(jsonValue(values[r][c], r, static_cast<long long>(c)));
    } else {
        if (!size) fail("a flat 'values' list needs \"size\": [width, height]");
        const std::size_t n = static_cast<std::size_t>(size->first) * static_cast<std::size_t>(size->second);
        if (values.size() != n)
            fail("'values' has " + std::to_string(values.size()) + " entries, 'size' " +
                 sizeText(size->first, size->second) + " needs " + std::to_string(n));
        k.width = static_cast<int>(size->first);
        k.height = static_cast<int>(size->second);
        for (std::size_t i = 0; i < n; ++i) k.values.push_back(jsonValue(values[i], i, -1));
    }
}

std::string mebibytes(std::uintmax_t bytes) { return std::to_string(bytes >> 20) + " MiB"; }

// The whole file, refused before it is read when it is over the limit (and when it grew past
// the limit while it was read).
std::string readFile(const std::string& path)
{
    const auto tooLarge = [&](std::uintmax_t bytes, bool atLeast) {
        return Error("kernel file '" + path + "' is too large (" + (atLeast ? "over " : "") + std::to_string(bytes) +
                     " bytes; kernel files are limited to " + mebibytes(kMaxKernelFileBytes) +
                     ", far more than a " + std::to_string(kMaxKernelSide) + "x" + std::to_string(kMaxKernelSide) +
                     " kernel needs)");
    };
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (!ec && bytes > kMaxKernelFileBytes) throw tooLarge(bytes, false);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error("cannot read kernel file '" + path + "'");
    std::string text(static_cast<std::size_t>(ec ? 0 : bytes), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    // Anything after the size seen above (a file still being written) is read in pieces.
    char piece[4096];
    while (in && !in.eof()) {
        in.read(piece, sizeof piece);
        text.append(piece, static_cast<std::size_t>(in.gcount()));
        if (text.size() > kMaxKernelFileBytes) throw tooLarge(kMaxKernelFileBytes, true);
    }
    if (in.bad()) throw Error("cannot read kernel file '" + path + "'");
    return text;
}

// A spec that can only be meant as a file name: a kernel file extension, or a path separator
// in a single token that is not a fraction ("1/16").
bool looksLikePath(const std::string& spec)
{
    const std::string ext = lower(fs::path(spec).extension().string());
    if (ext == ".json" || ext == ".txt") return true;
    const auto sep = spec.find_first_of("/\\");
    if (sep == std::string::npos || spec.find_first_of(" \t\r\n;,") != std::string::npos) return false;
    const std::string head = spec.substr(0, sep);
    const bool numeric = std::any_of(head.begin(), head.end(), [](unsigned char c) { return std::isdigit(c); }) &&
                         head.find_first_not_of("0123456789.+-eE") == std::string::npos;
    return !numeric;
}

std::string trimmed(std::string_view s)
{
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string_view::npos) return {};
    const auto e = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(b, e - b + 1));
}

} // namespace

KernelSpec parseKernelJson(std::string_view text)
{
    json doc;
    try {
        // A kernel file is at most two levels deep ("values": [[...], ...]); anything nested
        // much deeper is refused while it is read, before it can exhaust the stack (the parser
        // and the value's destructor and text form all recurse).
        constexpr int kMaxDepth = 16;
        // Nor does it hold more values than the largest kernel (plus its rows and the other
        // fields): a file of millions of numbers is refused before it fills memory with them.
        constexpr std::size_t kMaxValues = std::size_t(kMaxKernelSide) * (kMaxKernelSide + 1) + 64;
        std::size_t values = 0;
        const json::parser_callback_t limits = [&values](int depth, json::parse_event_t event, json&) {
            if (depth > kMaxDepth)
                throw Error("kernel JSON is nested more than " + std::to_string(kMaxDepth) + " levels deep");
            if (event == json::parse_event_t::value && ++values > kMaxValues)
                throw Error("kernel JSON holds more than " + std::to_string(kMaxValues) + " values, more than a " +
                            std::to_string(kMaxKernelSide) + "x" + std::to_string(kMaxKernelSide) +
                            " kernel needs");
            return true;
        };
        doc = json::parse(text.begin(), text.end(), limits);
    } catch (const json::exception& e) {
        std::string msg = e.what();
        if (const auto close = msg.find("] "); msg.starts_with("[json.exception.") && close != std::string::npos)
            msg.erase(0, close + 2);
        throw Error("kernel JSON is malformed: " + msg);
    }
    if (!doc.is_object()) fail("the document must be an object {...}, not " + std::string(doc.type_name()));

    static const char* const known[] = {"name", "size", "values", "anchor", "scale", "offset", "normalize", "semantics"};
    for (const auto& item : doc.items())
        if (std::find(std::begin(known), std::end(known), item.key()) == std::end(known))
            fail("unknown field '" + item.key() +
                 "' (fields: name, size, values, anchor, scale, offset, normalize, semantics)");

    KernelSpec spec;
    Kernel& k = spec.kernel;
    if (doc.contains("name")) {
        if (!doc["name"].is_string()) fail("'name' must be a string, got " + dumped(doc["name"], 60));
        k.name = doc["name"].get<std::string>();
    }
    std::optional<std::pair<long long, long long>> size;
    if (doc.contains("size")) {
        size = intPair(doc["size"], "size", 1, "[width, height] of positive whole numbers");
        if (size->first > kMaxKernelSide || size->second > kMaxKernelSide)
            fail("kernel " + sizeText(size->first, size->second) + " exceeds the " +
                 sizeText(kMaxKernelSide, kMaxKernelSide) + " limit");
    }
    if (!doc.contains("values")) fail("missing 'values'");
    readValues(doc["values"], size, k);
    if (doc.contains("anchor")) {
        const auto [ax, ay] = intPair(doc["anchor"], "anchor", 0, "[x, y] of whole numbers from 0");
        if (ax >= k.width || ay >= k.height)
            fail("anchor [" + std::to_string(ax) + ", " + std::to_string(ay) + "] lies outside the " +
                 sizeText(k.width, k.height) + " kernel");
        k.anchorX = static_cast<int>(ax);
        k.anchorY = static_cast<int>(ay);
    }
    if (doc.contains("scale")) spec.scale = finiteNumber(doc["scale"], "scale");
    if (doc.contains("offset")) spec.offset = finiteNumber(doc["offset"], "offset");
    if (doc.contains("normalize")) {
        if (!doc["normalize"].is_boolean()) fail("'normalize' must be true or false, got " + dumped(doc["normalize"], 60));
        spec.normalize = doc["normalize"].get<bool>();
    }
    if (doc.contains("semantics")) {
        const json& s = doc["semantics"];
        const std::string v = s.is_string() ? lower(s.get<std::string>()) : std::string();
        if (v == "convolution") spec.semantics = Semantics::Convolution;
        else if (v == "correlation") spec.semantics = Semantics::Correlation;
        else fail("'semantics' must be \"convolution\" or \"correlation\", got " + dumped(s, 60));
    }
    k.validate();
    return spec;
}

std::string kernelToJson(const KernelSpec& spec)
{
    const Kernel& k = spec.kernel;
    k.validate();
    for (const auto& [field, value] : {std::pair{"scale", spec.scale}, std::pair{"offset", spec.offset}})
        if (value && !std::isfinite(*value))
            throw Error(std::string("kernel ") + field + " " + std::to_string(*value) + " is not finite");

    std::string out = "{\n";
    if (!k.name.empty()) out += "  \"name\": " + dumped(json(k.name)) + ",\n";
    out += "  \"size\": [" + std::to_string(k.width) + ", " + std::to_string(k.height) + "],\n";
    if (k.anchorX >= 0 || k.anchorY >= 0)
        out += "  \"anchor\": [" + std::to_string(k.ax()) + ", " + std::to_string(k.ay()) + "],\n";
    out += "  \"values\": [\n";
    for (int v = 0; v < k.height; ++v) {
        out += "    [";
        for (int u = 0; u < k.width; ++u) {
            if (u) out += ", ";
            out += floatText(k.at(v, u));
        }
        out += v + 1 < k.height ? "],\n" : "]\n";
    }
    out += "  ]";
    if (spec.scale) out += ",\n  \"scale\": " + dumped(json(*spec.scale));
    if (spec.offset) out += ",\n  \"offset\": " + dumped(json(*spec.offset));
    if (spec.normalize) out += std::string(",\n  \"normalize\": ") + (*spec.normalize ? "true" : "false");
    if (spec.semantics)
        out += std::string(",\n  \"semantics\": ") +
               (*spec.semantics == Semantics::Convolution ? "\"convolution\"" : "\"correlation\"");
    out += "\n}\n";
    return out;
}

KernelSpec loadKernelSpec(std::string_view specText)
{
    const std::string spec = trimmed(specText);
    if (spec.empty()) throw Error("empty kernel spec: give values, a kernel file or preset:NAME");

    if (spec.starts_with("preset:")) {
        const std::string rest = spec.substr(7);
        const auto colon = rest.find(':');
        KernelSpec out;
        out.kernel = colon == std::string::npos ? makePreset(trimmed(rest))
                                                : makePreset(trimmed(rest.substr(0, colon)), rest.substr(colon + 1));
        return out;
    }

    std::error_code ec;
    const fs::file_status st = fs::status(spec, ec);
    if (fs::exists(st)) {
        if (!fs::is_regular_file(st)) throw Error("kernel file '" + spec + "' is not a regular file");
        const std::string text = readFile(spec);
        KernelSpec out;
        try {
            if (lower(fs::path(spec).extension().string()) == ".json") out = parseKernelJson(text);
            else out.kernel = parseKernelText(text);
        } catch (const Error& e) {
            throw Error("kernel file '" + spec + "': " + e.what());
        }
        if (out.kernel.name.empty()) out.kernel.name = fs::path(spec).stem().string();
        return out;
    }
    if (looksLikePath(spec)) throw Error("kernel file '" + spec + "' not found");

    if (spec.front() == '{') return parseKernelJson(spec);
    KernelSpec out;
    out.kernel = parseKernelText(spec);
    out.kernel.validate();
    return out;
}

void saveKernelFile(const KernelSpec& spec, const std::string& path)
{
    std::string content;
    if (lower(fs::path(path).extension().string()) == ".json") {
        content = kernelToJson(spec);
    } else {
        const Kernel& k = spec.kernel;
        k.validate();
        if (!k.name.empty()) {
            std::string name = k.name;
            std::replace_if(name.begin(), name.end(), [](unsigned char c) { return std::iscntrl(c); }, ' ');
            content += "# " + name + "\n";
        }
        std::string dropped;
        const auto note = [&](const std::string& s) {
            if (!dropped.empty()) dropped += ", ";
            dropped += s;
        };
        if (k.anchorX >= 0 || k.anchorY >= 0)
            note("anchor (" + std::to_string(k.ax()) + ", " + std::to_string(k.ay()) + ")");
        if (spec.scale) note("scale " + dumped(json(*spec.scale)));
        if (spec.offset) note("offset " + dumped(json(*spec.offset)));
        if (spec.normalize) note(std::string("normalize ") + (*spec.normalize ? "true" : "false"));
        if (spec.semantics) note(*spec.semantics == Semantics::Convolution ? "convolution" : "correlation");
        if (!dropped.empty()) content += "# not kept in a text file: " + dropped + " (save as .json to keep them)\n";
        for (int v = 0; v < k.height; ++v) {
            for (int u = 0; u < k.width; ++u) {
                if (u) content += ' ';
                content += floatText(k.at(v, u));
            }
            content += '\n';
        }
    }
    detail::writeFileAtomically(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << content;
        out.close();
        if (!out) throw Error("cannot write kernel file '" + path + "'");
    });
}

} // namespace convlab
