// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel basics: sums, validation, and the plain-text form ("1 2 1; 2 4 2; 1 2 1").
#include "convlab/kernel.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "convlab/error.h"

namespace convlab {

namespace {

std::string sizeText(int w, int h) { return std::to_string(w) + "x" + std::to_string(h); }

std::string floatText(float v)
{
    char buf[32];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isBlank(s.front())) s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back())) s.remove_suffix(1);
    return s;
}

// A decimal number with optional sign and exponent, parsed locale-independently. Plain numbers
// go straight to float (exact round trip of toText); nullopt when the text is not a number.
// Out-of-range magnitudes come back as +-infinity so the caller reports them as non-finite.
std::optional<double> parseDecimal(std::string_view s, bool asFloat)
{
    bool negative = false;
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
        negative = s.front() == '-';
        s.remove_prefix(1);
    }
    // from_chars accepts "inf"/"nan" on its own; reject a second sign or an empty remainder.
    if (s.empty() || s.front() == '+' || s.front() == '-') return std::nullopt;
    double d = 0.0;
    const char* end = s.data() + s.size();
    const auto res = std::from_chars(s.data(), end, d);
    if (res.ptr != end) return std::nullopt;
    if (res.ec == std::errc::result_out_of_range) {
        // Either overflow or underflow; tell them apart by the exponent's sign.
        const auto e = s.find_first_of("eE");
        const bool tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
        d = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    } else if (res.ec != std::errc()) {
        return std::nullopt;
    } else if (asFloat && std::isfinite(d)) {
        float f = 0.0f;
        const auto fr = std::from_chars(s.data(), end, f);
        if (fr.ec == std::errc() && fr.ptr == end) d = f; // else float overflow/underflow: keep the double
    }
    return negative ? -d : d;
}

[[noreturn]] void badValue(std::string_view token, int row, int col, const char* problem)
{
    throw Error("row " + std::to_string(row) + ", value " + std::to_string(col) + ": '" + std::string(token) + "' " +
                problem);
}

// One value token: a number or a fraction "a/b". Throws with the row/value position.
float parseValue(std::string_view token, int row, int col)
{
    const auto fail = [&](const char* problem) { badValue(token, row, col, problem); };
    double value = 0.0;
    const auto slash = token.find('/');
    if (slash == std::string_view::npos) {
        const auto d = parseDecimal(token, true);
        if (!d) fail("is not a number");
        value = *d;
    } else {
        const auto num = parseDecimal(token.substr(0, slash), false);
        const auto den = parseDecimal(token.substr(slash + 1), false);
        if (!num || !den) fail("is not a number or fraction");
        if (*den == 0.0) fail("divides by zero");
        value = *num / *den;
    }
    if (!std::isfinite(static_cast<float>(value))) fail("is not a finite float value");
    return static_cast<float>(value);
}

// Splits one row into value tokens: whitespace and/or a single comma separate values; a
// trailing comma is tolerated, an empty value between commas is not. Keeps at most
// kMaxKernelSide + 1 tokens (enough to say a row is too long) and returns how many there are:
// a file of one endless line never becomes millions of tokens.
std::size_t splitRow(std::string_view row, int rowNumber, std::vector<std::string_view>& tokens)
{
    tokens.clear();
    std::size_t count = 0;
    std::size_t i = 0;
    bool pendingComma = false;
    while (i < row.size()) {
        if (isBlank(row[i])) {
            ++i;
        } else if (row[i] == ',') {
            if (pendingComma || count == 0)
                throw Error("row " + std::to_string(rowNumber) + ": empty value before a comma");
            pendingComma = true;
            ++i;
        } else {
            const std::size_t start = i;
            while (i < row.size() && !isBlank(row[i]) && row[i] != ',') ++i;
            if (tokens.size() <= std::size_t(kMaxKernelSide)) tokens.push_back(row.substr(start, i - start));
            ++count;
            pendingComma = false;
        }
    }
    return count;
}

} // namespace

double Kernel::sum() const
{
    double s = 0.0;
    for (float v : values) s += v;
    return s;
}

double Kernel::absSum() const
{
    double s = 0.0;
    for (float v : values) s += std::fabs(v);
    return s;
}

void Kernel::validate() const
{
    if (width < 1 || height < 1) throw Error("kernel " + sizeText(width, height) + " is empty");
    if (width > kMaxKernelSide || height > kMaxKernelSide)
        throw Error("kernel " + sizeText(width, height) + " exceeds the " + sizeText(kMaxKernelSide, kMaxKernelSide) +
                    " limit");
    const std::size_t expected = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    if (values.size() != expected)
        throw Error("kernel " + sizeText(width, height) + " needs " + std::to_string(expected) + " values, has " +
                    std::to_string(values.size()));
    for (std::size_t i = 0; i < values.size(); ++i)
        if (!std::isfinite(values[i]))
            throw Error("kernel value at row " + std::to_string(i / width + 1) + ", column " +
                        std::to_string(i % width + 1) + " is not finite (" + floatText(values[i]) + ")");
    if (anchorX >= width || anchorY >= height)
        throw Error("kernel anchor (" + std::to_string(anchorX) + ", " + std::to_string(anchorY) +
                    ") lies outside the " + sizeText(width, height) + " kernel");
}

std::string Kernel::toText() const
{
    std::string out;
    for (int v = 0; v < height; ++v) {
        if (v > 0) out += "; ";
        for (int u = 0; u < width; ++u) {
            if (u > 0) out += ' ';
            out += floatText(at(v, u));
        }
    }
    return out;
}

Kernel parseKernelText(std::string_view text)
{
    Kernel k;
    int rowNumber = 0;
    std::vector<std::string_view> tokens;
    std::size_t lineStart = 0;
    while (lineStart <= text.size()) {
        std::size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string_view::npos) lineEnd = text.size();
        std::string_view line = text.substr(lineStart, lineEnd - lineStart);
        lineStart = lineEnd + 1;
        if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);

        std::size_t rowStart = 0;
        while (rowStart <= line.size()) {
            std::size_t rowEnd = line.find(';', rowStart);
            if (rowEnd == std::string_view::npos) rowEnd = line.size();
            const std::string_view row = trim(line.substr(rowStart, rowEnd - rowStart));
            rowStart = rowEnd + 1;
            if (row.empty()) continue;

            ++rowNumber;
            const std::size_t count = splitRow(row, rowNumber, tokens);
            if (rowNumber == 1) {
                if (count > std::size_t(kMaxKernelSide))
                    throw Error("row 1 has " + std::to_string(count) + " values, more than the limit of " +
                                std::to_string(kMaxKernelSide));
                k.width = static_cast<int>(count);
            } else if (count != static_cast<std::size_t>(k.width)) {
                throw Error("row " + std::to_string(rowNumber) + " has " + std::to_string(count) +
                            " values, row 1 has " + std::to_string(k.width));
            }
            if (rowNumber > kMaxKernelSide)
                throw Error("kernel has more than " + std::to_string(kMaxKernelSide) + " rows, the limit");
            for (std::size_t i = 0; i < tokens.size(); ++i)
                k.values.push_back(parseValue(tokens[i], rowNumber, static_cast<int>(i) + 1));
        }
    }
    if (rowNumber == 0) throw Error("empty kernel: no values given");
    k.height = rowNumber;
    return k;
}

} // namespace convlab
