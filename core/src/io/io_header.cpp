// SPDX-License-Identifier: GPL-3.0-or-later
// What an image file claims before anything is decoded: the signature, the size fields, and
// the file's outline (PNG chunks, JPEG markers, the first TIFF directory). The decoders would
// allocate the claimed size first and then find the data missing, or fill what is missing with
// grey and report success; this reading refuses such files at once, in a few small reads.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "convlab/error.h"
#include "convlab/image.h"
#include "io/io_internal.h"

namespace convlab::detail {
namespace {

// Bytes of a file by position, through a 64 KiB window: the walks below read a few bytes here
// and there, or one pass over a JPEG's entropy-coded data.
class FileBytes {
public:
    explicit FileBytes(const std::string& path) : in_(path, std::ios::binary)
    {
        if (!in_) throw Error("cannot read '" + path + "': the file cannot be opened");
        in_.seekg(0, std::ios::end);
        size_ = static_cast<std::uint64_t>(std::max<std::streamoff>(in_.tellg(), 0));
    }
    std::uint64_t size() const { return size_; }
    bool has(std::uint64_t pos, std::uint64_t n) const { return pos <= size_ && n <= size_ - pos; }
    // The byte at `pos`; callers check has() first.
    std::uint8_t at(std::uint64_t pos)
    {
        if (pos < start_ || pos >= start_ + window_.size()) load(pos);
        return window_[pos - start_];
    }
    std::uint32_t be16(std::uint64_t p) { return std::uint32_t(at(p)) << 8 | at(p + 1); }
    std::uint32_t be32(std::uint64_t p) { return be16(p) << 16 | be16(p + 2); }
    std::uint32_t le16(std::uint64_t p) { return std::uint32_t(at(p + 1)) << 8 | at(p); }
    std::uint32_t le32(std::uint64_t p) { return le16(p + 2) << 16 | le16(p); }
    // Position of the next byte `value` at or after `pos`, or size() when there is none.
    std::uint64_t find(std::uint64_t pos, std::uint8_t value)
    {
        while (pos < size_) {
            at(pos);
            const std::uint8_t* base = window_.data() + (pos - start_);
            const std::size_t left = window_.size() - (pos - start_);
            if (const void* hit = std::memchr(base, value, left))
                return pos + (static_cast<const std::uint8_t*>(hit) - base);
            pos += left;
        }
        return size_;
    }

private:
    void load(std::uint64_t pos)
    {
        constexpr std::uint64_t kWindow = 64 * 1024;
        start_ = pos;
        window_.resize(static_cast<std::size_t>(std::min(kWindow, size_ - pos)));
        in_.clear();
        in_.seekg(static_cast<std::streamoff>(pos));
        in_.read(reinterpret_cast<char*>(window_.data()), static_cast<std::streamsize>(window_.size()));
        if (in_.gcount() != static_cast<std::streamsize>(window_.size())) window_.resize(std::size_t(in_.gcount()));
        if (window_.empty()) throw Error("the file could not be read at byte " + std::to_string(pos));
    }

    std::ifstream in_;
    std::uint64_t size_ = 0;
    std::uint64_t start_ = 0;
    std::vector<std::uint8_t> window_;
};

// A size the loader would refuse after decoding (checkImageSize) is refused from the header.
[[noreturn]] void corrupt(const char* format, const std::string& why);

void requireLoadableSize(const ImageHeader& h)
{
    if (h.width == 0 || h.height == 0)
        corrupt(h.format, "its header gives an empty " + std::to_string(h.width) + "x" + std::to_string(h.height) +
                              " image");
    const bool sideOk = h.width >= 1 && h.height >= 1 && h.width <= std::uint64_t(kMaxImageSide) &&
                        h.height <= std::uint64_t(kMaxImageSide);
    // Sides within 2^16 keep the product far from overflow.
    if (sideOk && h.width * h.height * std::uint64_t(std::max(h.channels, 1)) <= kMaxImageValues) return;
    throw Error(std::string("its ") + h.format + " header claims a " + std::to_string(h.width) + "x" +
                std::to_string(h.height) + " image with " + std::to_string(h.channels) +
                (h.channels == 1 ? " channel" : " channels") + ": too large to load (the limit is " +
                std::to_string(kMaxImageSide) + " pixels per side and " + std::to_string(kMaxImageValues) +
                " values); refused before decoding");
}

[[noreturn]] void corrupt(const char* format, const std::string& why)
{
    throw Error(std::string("truncated or corrupt ") + format + ": " + why);
}

std::string ofSize(const FileBytes& f) { return " of the " + std::to_string(f.size()) + "-byte file"; }

// ---- PNG: IHDR, then chunks (length, type, data, CRC) up to IEND ----

int pngChannels(std::uint8_t colourType)
{
    switch (colourType) {
    case 0: return 1; // gray
    case 4: return 2; // gray + alpha
    case 2: return 3; // RGB
    case 3: return 3; // palette, decoded as RGB (RGBA with a transparency chunk)
    case 6: return 4; // RGBA
    }
    return 0;
}

std::string chunkName(FileBytes& f, std::uint64_t pos)
{
    std::string name;
    for (int i = 0; i < 4; ++i) {
        const char c = char(f.at(pos + i));
        name += std::isalpha(static_cast<unsigned char>(c)) ? std::string(1, c) : "?";
    }
    return name;
}

// A file far too small for the pixels its header claims is refused before a decoder allocates
// them (a few hundred bytes claiming 500 megapixels otherwise cost gigabytes and seconds before
// the decoder notices the data is missing). The bounds are what the formats can compress at
// best, with margin: deflate never beats 1032:1; a JPEG spends at least one bit per 8x8 luma
// block on its DC coefficients, taken here as one byte per 512 blocks.
void requireEnoughPngData(const ImageHeader& h, int bitDepth, std::uint64_t idatBytes)
{
    const std::uint64_t rowBytes = 1 + (h.width * std::uint64_t(h.channels) * std::uint64_t(std::max(bitDepth, 1)) + 7) / 8;
    const std::uint64_t raw = rowBytes * h.height;
    if (idatBytes * 1032 + 1024 >= raw) return;
    corrupt("PNG", "its header claims " + std::to_string(h.width) + "x" + std::to_string(h.height) + " pixels (" +
                       std::to_string(raw) + " bytes), which " + std::to_string(idatBytes) +
                       " bytes of compressed data cannot hold");
}

void requireEnoughJpegData(const ImageHeader& h, std::uint64_t fileBytes)
{
    const std::uint64_t blocks = ((h.width + 7) / 8) * ((h.height + 7) / 8);
    if (fileBytes * 512 >= blocks) return;
    corrupt("JPEG", "its frame header claims " + std::to_string(h.width) + "x" + std::to_string(h.height) +
                        " pixels, which a " + std::to_string(fileBytes) + "-byte file cannot hold");
}

ImageHeader pngHeader(FileBytes& f)
{
    ImageHeader h{"PNG"};
    if (!f.has(8, 8 + 13) || chunkName(f, 12) != "IHDR" || f.be32(8) != 13)
        corrupt("PNG", f.size() < 8 + 8 + 13 + 4 ? "the file ends before the image header (IHDR)"
                                                  : "the first chunk is not the image header (IHDR)");
    h.width = f.be32(16);
    h.height = f.be32(20);
    h.channels = pngChannels(f.at(25));
    if (h.channels == 0) corrupt("PNG", "colour type " + std::to_string(f.at(25)) + " does not exist");
    requireLoadableSize(h);
    std::uint64_t pos = 8, idat = 0;
    for (int index = 1;; ++index) {
        if (!f.has(pos, 8))
            corrupt("PNG", "the file ends at byte " + std::to_string(f.size()) + " before the end chunk (IEND)");
        const std::uint64_t length = f.be32(pos);
        const std::string name = chunkName(f, pos + 4);
        if (length > 0x7fffffffu) corrupt("PNG", "chunk " + std::to_string(index) + " claims a length over 2^31");
        if (!f.has(pos + 8, length + 4))
            corrupt("PNG", "the file ends inside chunk " + std::to_string(index) + " ('" + name + "', " +
                               std::to_string(length) + " bytes at byte " + std::to_string(pos) + ")" + ofSize(f));
        if (name == "IDAT") idat += length;
        if (name == "IEND") {
            requireEnoughPngData(h, f.at(24), idat);
            return h;
        }
        pos += 8 + length + 4;
    }
}

// ---- JPEG: markers and segments up to EOI, the size from the frame header (SOFn) ----

bool isFrameHeader(std::uint8_t m) { return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc; }
bool isStandalone(std::uint8_t m) { return m == 0x01 || (m >= 0xd0 && m <= 0xd7); } // TEM, RSTn

// The position of the marker after the entropy-coded data that starts at `pos` (0xFF 0x00 is
// a stuffed data byte, restart markers belong to the data), or size() when the file ends first.
std::uint64_t endOfScan(FileBytes& f, std::uint64_t pos)
{
    for (;;) {
        pos = f.find(pos, 0xff);
        if (!f.has(pos, 2)) return f.size();
        const std::uint8_t next = f.at(pos + 1);
        if (next != 0x00 && next != 0xff && !(next >= 0xd0 && next <= 0xd7)) return pos;
        pos += next == 0xff ? 1 : 2; // 0xFF fill bytes before a marker
    }
}

ImageHeader jpegHeader(FileBytes& f)
{
    ImageHeader h{"JPEG"};
    bool frame = false;
    const auto ended = [&](const std::string& where) {
        corrupt("JPEG", "the file ends " + where + " at byte " + std::to_string(f.size()) +
                            ", before the end-of-image marker");
    };
    std::uint64_t pos = 2;
    for (;;) {
        pos = f.find(pos, 0xff); // bytes that are not a marker: the decoder skips them too
        while (f.has(pos, 2) && f.at(pos + 1) == 0xff) ++pos;
        if (!f.has(pos, 2)) ended(frame ? "after the image data" : "before the image data");
        const std::uint8_t marker = f.at(pos + 1);
        if (marker == 0xd9) break; // EOI
        pos += 2;
        if (isStandalone(marker) || marker == 0x00) continue;
        if (!f.has(pos, 2)) ended("inside a marker segment");
        const std::uint64_t length = f.be16(pos);
        if (length < 2) corrupt("JPEG", "a marker segment at byte " + std::to_string(pos) + " claims length " +
                                            std::to_string(length));
        if (!f.has(pos, length)) ended("inside a marker segment");
        if (isFrameHeader(marker) && !frame && length >= 8) {
            frame = true;
            h.height = f.be16(pos + 3);
            h.width = f.be16(pos + 5);
            const int components = f.at(pos + 7);
            h.channels = components == 4 ? 3 : components; // CMYK/YCCK decode to BGR
            // Height 0 is legal (a DNL segment gives it later); there is no size to check then.
            if (h.height > 0) requireLoadableSize(h);
        }
        pos += length;
        if (marker == 0xda) { // SOS: entropy-coded data follows
            pos = endOfScan(f, pos);
            if (!f.has(pos, 2)) ended("inside the image data");
        }
    }
    if (!frame) corrupt("JPEG", "no frame header (SOFn): there is no image in the file");
    requireEnoughJpegData(h, f.size());
    return h;
}

// ---- TIFF: the first directory (IFD) and where its strips or tiles lie ----

class TiffReader {
public:
    TiffReader(FileBytes& f, bool little) : f_(f), little_(little) {}
    std::uint32_t u16(std::uint64_t p) { return little_ ? f_.le16(p) : f_.be16(p); }
    std::uint32_t u32(std::uint64_t p) { return little_ ? f_.le32(p) : f_.be32(p); }
    // Element `i` of entry `e`'s values (SHORT or LONG), inline or at the entry's offset.
    std::optional<std::uint64_t> value(std::uint64_t e, std::uint64_t i)
    {
        const std::uint32_t type = u16(e + 2), count = u32(e + 4);
        const int size = type == 3 ? 2 : type == 4 ? 4 : 0;
        if (size == 0 || i >= count) return std::nullopt;
        const std::uint64_t base = std::uint64_t(count) * size <= 4 ? e + 8 : u32(e + 8);
        const std::uint64_t at = base + i * size;
        if (!f_.has(at, size)) return std::nullopt;
        return size == 2 ? u16(at) : u32(at);
    }

private:
    FileBytes& f_;
    bool little_;
};

ImageHeader tiffHeader(FileBytes& f, bool little)
{
    ImageHeader h{"TIFF"};
    TiffReader r(f, little);
    const std::uint64_t ifd = r.u32(4);
    if (!f.has(ifd, 2))
        corrupt("TIFF", "the first directory at byte " + std::to_string(ifd) + " lies past the end" + ofSize(f));
    const std::uint64_t count = r.u16(ifd);
    if (!f.has(ifd + 2, count * 12))
        corrupt("TIFF", "the first directory (" + std::to_string(count) + " entries at byte " + std::to_string(ifd) +
                            ") runs past the end" + ofSize(f));
    std::uint64_t offsets = 0, counts = 0, pieces = 0;
    h.channels = 1;
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t e = ifd + 2 + 12 * i;
        const std::uint32_t tag = r.u16(e);
        const auto v = r.value(e, 0);
        if (tag == 256 && v) h.width = *v;
        if (tag == 257 && v) h.height = *v;
        if (tag == 277 && v) h.channels = int(std::min<std::uint64_t>(*v, 4));
        if (tag == 273 || tag == 324) offsets = e, pieces = r.u32(e + 4);
        if (tag == 279 || tag == 325) counts = e;
    }
    if (h.width == 0 || h.height == 0) corrupt("TIFF", "the first directory gives no image width or height");
    requireLoadableSize(h);
    // Every strip (or tile) must lie inside the file; a cut file loses the last ones first.
    for (std::uint64_t i = 0; offsets && counts && i < pieces; ++i) {
        const auto start = r.value(offsets, i), length = r.value(counts, i);
        if (!start || !length) break;
        if (!f.has(*start, *length))
            corrupt("TIFF", "image data piece " + std::to_string(i + 1) + " of " + std::to_string(pieces) + " (bytes " +
                                std::to_string(*start) + ".." + std::to_string(*start + *length) +
                                ") lies past the end" + ofSize(f));
    }
    return h;
}

// ---- BMP and PNM: the size fields only (their decoders read rows as they go) ----

ImageHeader bmpHeader(FileBytes& f)
{
    ImageHeader h{"BMP"};
    if (!f.has(14, 12)) corrupt("BMP", "the file ends inside the header");
    const std::uint32_t infoSize = f.le32(14);
    if (infoSize == 12) { // OS/2 BITMAPCOREHEADER: 16-bit sizes
        h.width = f.le16(18);
        h.height = f.le16(20);
        h.channels = 3;
    } else {
        if (!f.has(14, 16)) corrupt("BMP", "the file ends inside the header");
        const auto w = static_cast<std::int32_t>(f.le32(18)), ht = static_cast<std::int32_t>(f.le32(22));
        h.width = static_cast<std::uint64_t>(std::abs(std::int64_t(w)));
        h.height = static_cast<std::uint64_t>(std::abs(std::int64_t(ht))); // negative: top-down rows
        const std::uint32_t bits = f.le16(28);
        h.channels = bits == 32 ? 4 : bits > 8 ? 3 : 1;
    }
    requireLoadableSize(h);
    return h;
}

ImageHeader pnmHeader(FileBytes& f, char kind)
{
    ImageHeader h{"PNM"};
    h.channels = kind == '3' || kind == '6' ? 3 : 1;
    std::uint64_t pos = 2;
    std::uint64_t numbers[2] = {0, 0};
    for (std::uint64_t& n : numbers) {
        for (;;) { // blanks and '#' comments
            if (!f.has(pos, 1)) corrupt("PNM", "the file ends inside the header");
            const std::uint8_t c = f.at(pos);
            if (c == '#') {
                pos = f.find(pos, '\n');
            } else if (std::isspace(c)) {
                ++pos;
            } else {
                break;
            }
        }
        if (!std::isdigit(f.at(pos))) corrupt("PNM", "the header has no image width and height");
        while (f.has(pos, 1) && std::isdigit(f.at(pos)) && n <= std::uint64_t(1) << 40) n = n * 10 + (f.at(pos++) - '0');
    }
    h.width = numbers[0];
    h.height = numbers[1];
    requireLoadableSize(h);
    return h;
}

} // namespace

ImageHeader inspectImageFile(const std::string& path)
{
    FileBytes f(path);
    try {
        if (f.size() == 0) throw Error("the file is empty (0 bytes)");
        std::array<std::uint8_t, 8> sig{};
        for (std::size_t i = 0; i < sig.size() && f.has(i, 1); ++i) sig[i] = f.at(i);
        const auto starts = [&](std::initializer_list<int> bytes) {
            std::size_t i = 0;
            for (int b : bytes)
                if (!f.has(i, 1) || sig[i++] != b) return false;
            return true;
        };
        if (starts({0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'})) return pngHeader(f);
        if (starts({0xff, 0xd8, 0xff})) return jpegHeader(f);
        if (starts({'I', 'I', 42, 0}) && f.has(0, 8)) return tiffHeader(f, true);
        if (starts({'M', 'M', 0, 42}) && f.has(0, 8)) return tiffHeader(f, false);
        if (starts({'B', 'M'})) return bmpHeader(f);
        if (sig[0] == 'P' && f.has(1, 1) && sig[1] >= '1' && sig[1] <= '6') return pnmHeader(f, char(sig[1]));
        // Other formats (WebP: at most 16383 pixels per side, so always within the limits) are
        // left to their decoders.
        return ImageHeader{};
    } catch (const Error& e) {
        throw Error("cannot read '" + path + "': " + e.what());
    }
}

} // namespace convlab::detail
