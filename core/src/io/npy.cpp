// SPDX-License-Identifier: GPL-3.0-or-later
// NumPy .npy files (format versions 1.0, 2.0 and 3.0): a magic string, a version, the length of
// a Python-literal header dict ('descr', 'fortran_order', 'shape'), then the raw array data.
#include <algorithm>
#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/error.h"
#include "convlab/io.h"
#include "io/fsutil.h"
#include "io/io_internal.h"

namespace convlab {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;
constexpr std::uint32_t kMaxHeaderLength = 1 << 20;

enum class Kind { F32, F64, U8, U16 };

struct Dtype {
    Kind kind;
    int size;
    bool bigEndian;
};

struct Header {
    std::string descr;
    bool fortranOrder = false;
    std::vector<std::uint64_t> shape;
};

[[noreturn]] void readFail(const std::string& path, const std::string& why)
{
    throw Error("cannot read '" + path + "': " + why);
}

std::string shapeText(const std::vector<std::uint64_t>& shape)
{
    std::string s = "(";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + (shape.size() == 1 ? ",)" : ")");
}

// Parses the header dict. Values are limited to what .npy headers hold: strings, True/False and
// tuples of non-negative integers.
class HeaderParser {
public:
    HeaderParser(std::string_view text, const std::string& path) : s_(text), path_(path) {}

    Header parse()
    {
        Header h;
        bool haveDescr = false, haveFortran = false, haveShape = false;
        expect('{');
        while (!consume('}')) {
            const std::string key = parseString();
            expect(':');
            if (key == "descr") {
                skipSpace();
                if (peek() == '[') fail("structured dtypes are not supported (an image needs a plain numeric dtype)");
                h.descr = parseString();
                haveDescr = true;
            } else if (key == "fortran_order") {
                h.fortranOrder = parseBool();
                haveFortran = true;
            } else if (key == "shape") {
                h.shape = parseShape();
                haveShape = true;
            } else {
                fail("unexpected key '" + key + "'");
            }
            if (!consume(',')) {
                expect('}');
                break;
            }
        }
        if (!haveDescr || !haveFortran || !haveShape)
            fail("missing key '" + std::string(!haveDescr ? "descr" : !haveFortran ? "fortran_order" : "shape") + "'");
        skipSpace();
        if (pos_ != s_.size()) fail("unexpected text after the dict");
        return h;
    }

private:
    [[noreturn]] void fail(const std::string& why) { readFail(path_, "bad .npy header: " + why); }

    void skipSpace()
    {
        while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    }
    char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
    bool consume(char c)
    {
        skipSpace();
        if (peek() != c) return false;
        ++pos_;
        return true;
    }
    void expect(char c)
    {
        if (!consume(c)) fail(std::string("expected '") + c + "' at offset " + std::to_string(pos_));
    }

    std::string parseString()
    {
        skipSpace();
        const char quote = peek();
        if (quote != '\'' && quote != '"') fail("expected a quoted string at offset " + std::to_string(pos_));
        const std::size_t end = s_.find(quote, pos_ + 1);
        if (end == std::string_view::npos) fail("unterminated string");
        std::string out(s_.substr(pos_ + 1, end - pos_ - 1));
        pos_ = end + 1;
        return out;
    }

    bool parseBool()
    {
        skipSpace();
        for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
            if (s_.substr(pos_, word.size()) == word) {
                pos_ += word.size();
                return value;
            }
        }
        fail("fortran_order must be True or False");
    }

    std::vector<std::uint64_t> parseShape()
    {
        std::vector<std::uint64_t> shape;
        expect('(');
        while (!consume(')')) {
            skipSpace();
            if (!std::isdigit(static_cast<unsigned char>(peek()))) fail("shape must be a tuple of non-negative integers");
            std::uint64_t v = 0;
            while (std::isdigit(static_cast<unsigned char>(peek()))) {
                if (v > (std::uint64_t(1) << 50)) fail("shape dimension is absurdly large");
                v = v * 10 + std::uint64_t(s_[pos_++] - '0');
            }
            if (peek() == 'L') ++pos_; // written by Python 2
            shape.push_back(v);
            if (shape.size() > 32) fail("shape has too many dimensions");
            if (!consume(',')) {
                expect(')');
                break;
            }
        }
        return shape;
    }

    std::string_view s_;
    const std::string& path_;
    std::size_t pos_ = 0;
};

Dtype parseDtype(const std::string& descr, const std::string& path)
{
    const auto unsupported = [&]() -> Dtype {
        readFail(path, "unsupported dtype '" + descr + "' (float32, float64, uint8 and uint16 are supported)");
    };
    if (descr.size() != 3 || std::string_view("<>|=").find(descr[0]) == std::string_view::npos) return unsupported();
    const bool big = descr[0] == '>' || (descr[0] == '=' && std::endian::native == std::endian::big);
    const std::string_view t = std::string_view(descr).substr(1);
    if (t == "f4") return {Kind::F32, 4, big};
    if (t == "f8") return {Kind::F64, 8, big};
    if (t == "u1") return {Kind::U8, 1, big};
    if (t == "u2") return {Kind::U16, 2, big};
    return unsupported();
}

template <class T> T loadSample(const unsigned char* p, bool swap)
{
    unsigned char b[sizeof(T)];
    std::memcpy(b, p, sizeof(T));
    if (swap) std::reverse(b, b + sizeof(T));
    T v;
    std::memcpy(&v, b, sizeof(T));
    return v;
}

template <class T> void storeSample(unsigned char* p, T v, bool swap)
{
    std::memcpy(p, &v, sizeof(T));
    if (swap) std::reverse(p, p + sizeof(T));
}

// Interleaved (x, c) row of the file -> row y of the planar image.
template <class T> void decodeRow(const unsigned char* src, bool swap, Image& img, int y)
{
    for (int x = 0; x < img.width; ++x)
        for (int c = 0; c < img.channels; ++c)
            img.at(c, y, x) = static_cast<float>(loadSample<T>(src + (std::size_t(x) * img.channels + c) * sizeof(T), swap));
}

std::uint64_t readLittle(const unsigned char* p, int bytes)
{
    std::uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

struct NpyLayout {
    std::uint64_t width = 0, height = 0, channels = 0;
    Dtype dt;
};

} // namespace

// Reads and checks the header of the .npy file open in `in`, up to its array data: every check
// readNpy makes before it allocates.
static NpyLayout readNpyLayout(const std::string& path, std::ifstream& in)
{
    std::error_code ec;
    const std::uintmax_t fileSize = std::filesystem::file_size(path, ec);
    if (ec) readFail(path, ec.message());

    unsigned char pre[12];
    if (fileSize < 10 || !in.read(reinterpret_cast<char*>(pre), 8)) readFail(path, "too short to be a .npy file");
    if (std::memcmp(pre, kMagic, kMagicSize) != 0) readFail(path, "not a .npy file (bad magic string)");
    const int major = pre[6], minor = pre[7];
    if ((major != 1 && major != 2 && major != 3) || minor != 0)
        readFail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
    const int lengthBytes = major == 1 ? 2 : 4;
    if (!in.read(reinterpret_cast<char*>(pre + 8), lengthBytes)) readFail(path, "truncated .npy header");
    const std::uint64_t headerLength = readLittle(pre + 8, lengthBytes);
    const std::uint64_t dataOffset = 8 + lengthBytes + headerLength;
    if (headerLength > kMaxHeaderLength) readFail(path, "implausible .npy header length " + std::to_string(headerLength));
    if (dataOffset > fileSize) readFail(path, "truncated .npy header");
    std::string headerText(headerLength, '\0');
    if (!in.read(headerText.data(), std::streamsize(headerLength))) readFail(path, "truncated .npy header");

    const Header h = HeaderParser(headerText, path).parse();
    const Dtype dt = parseDtype(h.descr, path);
    if (h.fortranOrder)
        readFail(path, "fortran_order arrays are not supported (save a C-ordered array, e.g. numpy.ascontiguousarray)");
    if (h.shape.size() != 2 && h.shape.size() != 3)
        readFail(path, "shape " + shapeText(h.shape) + " is not an image: expected (H, W) or (H, W, C)");
    const std::uint64_t H = h.shape[0], W = h.shape[1], C = h.shape.size() == 3 ? h.shape[2] : 1;
    if (H < 1 || W < 1 || H > std::uint64_t(kMaxImageSide) || W > std::uint64_t(kMaxImageSide))
        readFail(path, "shape " + shapeText(h.shape) + ": height and width must be 1.." + std::to_string(kMaxImageSide));
    if (C < 1 || C > 4) readFail(path, "shape " + shapeText(h.shape) + ": 1 to 4 channels are supported");
    const std::uint64_t values = H * W * C;
    if (values > kMaxImageValues)
        readFail(path, "shape " + shapeText(h.shape) + " has " + std::to_string(values) + " values, more than the limit " +
                           std::to_string(kMaxImageValues));
    const std::uint64_t dataBytes = values * std::uint64_t(dt.size);
    const std::uint64_t available = fileSize - dataOffset;
    if (available < dataBytes)
        readFail(path, "truncated: shape " + shapeText(h.shape) + " needs " + std::to_string(dataBytes) +
                           " bytes of data, the file has " + std::to_string(available));
    if (available > dataBytes)
        readFail(path, std::to_string(available - dataBytes) + " unexpected bytes after the array data");
    return {W, H, C, dt};
}

Image readNpy(const std::string& path)
{
    detail::requireInputFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) readFail(path, "the file cannot be opened");
    const NpyLayout layout = readNpyLayout(path, in);
    const std::uint64_t W = layout.width, H = layout.height, C = layout.channels;
    const Dtype dt = layout.dt;
    SampleDepth depth = SampleDepth::F32;
    if (dt.kind == Kind::U8) depth = SampleDepth::U8;
    if (dt.kind == Kind::U16) depth = SampleDepth::U16;
    Image img = Image::uninitialized(int(W), int(H), int(C), depth); // every row is decoded below
    const bool swap = dt.size > 1 && dt.bigEndian != (std::endian::native == std::endian::big);
    std::vector<unsigned char> row(std::size_t(W * C) * dt.size);
    for (int y = 0; y < img.height; ++y) {
        if (!in.read(reinterpret_cast<char*>(row.data()), std::streamsize(row.size())))
            readFail(path, "read error in the array data");
        switch (dt.kind) {
        case Kind::F32: decodeRow<float>(row.data(), swap, img, y); break;
        case Kind::F64: decodeRow<double>(row.data(), swap, img, y); break;
        case Kind::U8: decodeRow<std::uint8_t>(row.data(), swap, img, y); break;
        case Kind::U16: decodeRow<std::uint16_t>(row.data(), swap, img, y); break;
        }
    }
    return img;
}

std::optional<ClaimedShape> detail::claimedNpyShape(const std::string& path)
{
    detail::requireInputFile(path);
    std::ifstream in(path, std::ios::binary);
    if (!in) readFail(path, "the file cannot be opened");
    const NpyLayout layout = readNpyLayout(path, in);
    return ClaimedShape{int(layout.width), int(layout.height), int(layout.channels)};
}

void writeNpy(const Image& img, const std::string& path, const SaveOptions& opts)
{
    detail::requireSavableImage(img, path);
    const SampleDepth depth = opts.depth.value_or(SampleDepth::F32);
    const char* descr = depth == SampleDepth::U8 ? "|u1" : depth == SampleDepth::U16 ? "<u2" : "<f4";
    const int itemSize = depth == SampleDepth::U8 ? 1 : depth == SampleDepth::U16 ? 2 : 4;
    const bool swap = std::endian::native == std::endian::big;

    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" +
                         std::to_string(img.height) + ", " + std::to_string(img.width) +
                         (img.channels > 1 ? ", " + std::to_string(img.channels) : "") + "), }";
    // Version 1.0: magic, version, uint16 length; the whole preamble is padded to 64 bytes.
    const std::size_t preambleSize = kMagicSize + 2 + 2;
    header.append(63 - (preambleSize + header.size()) % 64, ' ');
    header += '\n';

    const std::string preamble = std::string(kMagic, kMagicSize) + '\x01' + '\x00' +
                                 static_cast<char>(header.size() & 0xff) + static_cast<char>(header.size() >> 8);

    detail::writeFileAtomically(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw Error("cannot write '" + path + "': the file cannot be created");
        out.write(preamble.data(), std::streamsize(preamble.size()));
        out.write(header.data(), std::streamsize(header.size()));

        const detail::SampleMapping mapping(img, depth, opts.map); // integer depths only
        std::vector<unsigned char> row(std::size_t(img.width) * img.channels * itemSize);
        for (int y = 0; y < img.height && out; ++y) {
            unsigned char* p = row.data();
            for (int x = 0; x < img.width; ++x) {
                for (int c = 0; c < img.channels; ++c, p += itemSize) {
                    const float v = img.at(c, y, x);
                    switch (depth) {
                    case SampleDepth::F32: storeSample<float>(p, v, swap); break;
                    case SampleDepth::U8: *p = static_cast<std::uint8_t>(mapping(v)); break;
                    case SampleDepth::U16: storeSample<std::uint16_t>(p, static_cast<std::uint16_t>(mapping(v)), swap); break;
                    }
                }
            }
            out.write(reinterpret_cast<const char*>(row.data()), std::streamsize(row.size()));
        }
        out.close();
        if (!out) throw Error("cannot write '" + path + "': write failed (disk full?)");
    });
}

} // namespace convlab
