// SPDX-License-Identifier: GPL-3.0-or-later
#include "convlab/testchart.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>

// Layout, as fractions of the chart so that every size gets every part it has room for:
//
//   +--------------------------+--------------------------+  0
//   | Siemens star (step edges | zone plate cos(k r^2),   |
//   | at every angle), warm    | reaching Nyquist at the  |
//   | tint on grey             | inscribed circle         |
//   +--------+-----+-----------+--------------------------+  3/5
//   | h-ramp | v-  | checkers  | R  G  B  C  M  Y patches |
//   |        | ramp| 1, 2, 4 px|                          |
//   +--------+-----+-----------+--------------------------+  4/5
//   | glyph rows "CONVLAB 0123456789" at scales 1, 2, 3 .. |
//   +-----------------------------------------------------+  1
//   0       1/4   7/20        13/20                        1
//
// Every value is an integer in 0..255. A region too small for its content stays grey.

namespace convlab {
namespace {

using Rgb = std::array<int, 3>;

constexpr Rgb kGrey{128, 128, 128};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kWhite{255, 255, 255};
// The star's two tones differ per channel, so a swapped channel order changes its contrast.
constexpr Rgb kStarLight{255, 240, 224};
constexpr Rgb kStarDark{0, 16, 32};

struct Rect {
    int x0, y0, x1, y1; // half-open [x0, x1) x [y0, y1)
    int width() const { return x1 - x0; }
    int height() const { return y1 - y0; }
    bool empty() const { return x1 <= x0 || y1 <= y0; }
};

class Canvas {
public:
    explicit Canvas(Image& img) : img_(img) {}

    void set(int x, int y, const Rgb& v)
    {
        for (int c = 0; c < 3; ++c)
            img_.at(c, y, x) = static_cast<float>(v[c]);
    }
    void fill(const Rect& r, const Rgb& v)
    {
        for (int y = r.y0; y < r.y1; ++y)
            for (int x = r.x0; x < r.x1; ++x)
                set(x, y, v);
    }

private:
    Image& img_;
};

int toByte(double v)
{
    return static_cast<int>(std::lround(std::clamp(v, 0.0, 255.0)));
}

// Fraction f of n, rounded down: the region boundaries.
int frac(int n, int num, int den)
{
    return static_cast<int>(static_cast<long long>(n) * num / den);
}

void drawSiemensStar(Canvas& cv, const Rect& r)
{
    constexpr int kWedges = 36; // 18 light/dark pairs: an edge every 10 degrees
    cv.fill(r, kGrey);
    const double radius = 0.45 * std::min(r.width(), r.height());
    if (radius < 1.0)
        return;
    const double cx = r.x0 + r.width() / 2.0;
    const double cy = r.y0 + r.height() / 2.0;
    const double wedge = 2.0 * std::numbers::pi / kWedges;
    for (int y = r.y0; y < r.y1; ++y) {
        for (int x = r.x0; x < r.x1; ++x) {
            const double dx = x + 0.5 - cx;
            const double dy = y + 0.5 - cy;
            if (dx * dx + dy * dy > radius * radius)
                continue;
            const double angle = std::atan2(dy, dx) + std::numbers::pi; // 0..2pi
            const int index = static_cast<int>(angle / wedge);
            cv.set(x, y, index % 2 == 0 ? kStarLight : kStarDark);
        }
    }
}

// cos(k r^2) has the local frequency k r / pi cycles per pixel: k is chosen so that it reaches
// Nyquist (0.5) at the inscribed circle; the corners beyond it alias on purpose.
void drawZonePlate(Canvas& cv, const Rect& r)
{
    if (r.empty())
        return;
    const double rmax = std::max(1.0, std::min(r.width(), r.height()) / 2.0);
    const double k = std::numbers::pi / (2.0 * rmax);
    const double cx = r.x0 + r.width() / 2.0;
    const double cy = r.y0 + r.height() / 2.0;
    for (int y = r.y0; y < r.y1; ++y) {
        for (int x = r.x0; x < r.x1; ++x) {
            const double dx = x + 0.5 - cx;
            const double dy = y + 0.5 - cy;
            const int v = toByte(127.5 + 127.5 * std::cos(k * (dx * dx + dy * dy)));
            cv.set(x, y, {v, v, v});
        }
    }
}

// 0 at the start, 255 at the end, along x (horizontal) or y.
void drawRamp(Canvas& cv, const Rect& r, bool horizontal)
{
    const int n = horizontal ? r.width() : r.height();
    const double step = 255.0 / std::max(1, n - 1);
    for (int y = r.y0; y < r.y1; ++y) {
        for (int x = r.x0; x < r.x1; ++x) {
            const int v = toByte(step * (horizontal ? x - r.x0 : y - r.y0));
            cv.set(x, y, {v, v, v});
        }
    }
}

// Three side-by-side checkerboards with squares of 1, 2 and 4 pixels.
void drawCheckerboards(Canvas& cv, const Rect& r)
{
    constexpr std::array<int, 3> kSquares{1, 2, 4};
    for (int i = 0; i < 3; ++i) {
        const Rect part{r.x0 + frac(r.width(), i, 3), r.y0, r.x0 + frac(r.width(), i + 1, 3), r.y1};
        const int s = kSquares[i];
        for (int y = part.y0; y < part.y1; ++y)
            for (int x = part.x0; x < part.x1; ++x)
                cv.set(x, y, ((x - part.x0) / s + (y - part.y0) / s) % 2 == 0 ? kWhite : kBlack);
    }
}

void drawColourPatches(Canvas& cv, const Rect& r)
{
    constexpr std::array<Rgb, 6> kPatches{{
        {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {0, 255, 255}, {255, 0, 255}, {255, 255, 0},
    }};
    const int n = static_cast<int>(kPatches.size());
    for (int i = 0; i < n; ++i)
        cv.fill({r.x0 + frac(r.width(), i, n), r.y0, r.x0 + frac(r.width(), i + 1, n), r.y1}, kPatches[i]);
}

// A 5x7 pixel font for the characters of "CONVLAB 0123456789": seven rows per glyph, bit 4 is the
// leftmost column.
constexpr int kGlyphW = 5;
constexpr int kGlyphH = 7;
using Glyph = std::array<std::uint8_t, kGlyphH>;

Glyph glyphFor(char ch)
{
    switch (ch) {
    case 'A': return {0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11};
    case 'B': return {0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E};
    case 'C': return {0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E};
    case 'L': return {0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F};
    case 'N': return {0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11};
    case 'O': return {0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E};
    case 'V': return {0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04};
    case '0': return {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E};
    case '1': return {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E};
    case '2': return {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F};
    case '3': return {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E};
    case '4': return {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02};
    case '5': return {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E};
    case '6': return {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E};
    case '7': return {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08};
    case '8': return {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E};
    case '9': return {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C};
    default: return {};
    }
}

// Black glyph rows on white, at scales 1, 2, 3, ... while they fit; the text repeats along the
// row and only whole glyphs are drawn.
void drawGlyphRows(Canvas& cv, const Rect& r)
{
    constexpr std::string_view kText = "CONVLAB 0123456789 ";
    cv.fill(r, kWhite);
    const int margin = std::min(4, std::min(r.width(), r.height()) / 8);
    int top = r.y0 + margin;
    for (int s = 1; top + kGlyphH * s <= r.y1 - margin; top += (kGlyphH + 3) * s, ++s) {
        const int advance = (kGlyphW + 1) * s;
        for (int i = 0, left = r.x0 + margin; left + kGlyphW * s <= r.x1 - margin; ++i, left += advance) {
            const Glyph g = glyphFor(kText[static_cast<std::size_t>(i) % kText.size()]);
            for (int gy = 0; gy < kGlyphH * s; ++gy)
                for (int gx = 0; gx < kGlyphW * s; ++gx)
                    if ((g[gy / s] >> (kGlyphW - 1 - gx / s)) & 1)
                        cv.set(left + gx, top + gy, kBlack);
        }
    }
}

} // namespace

Image makeTestChart(int width, int height)
{
    Image img(width, height, 3, SampleDepth::U8);
    Canvas cv(img);
    cv.fill({0, 0, width, height}, kGrey);

    const int w = width;
    const int yMid = frac(height, 3, 5);
    const int yLow = frac(height, 4, 5);
    drawSiemensStar(cv, {0, 0, w / 2, yMid});
    drawZonePlate(cv, {w / 2, 0, w, yMid});
    drawRamp(cv, {0, yMid, frac(w, 1, 4), yLow}, true);
    drawRamp(cv, {frac(w, 1, 4), yMid, frac(w, 7, 20), yLow}, false);
    drawCheckerboards(cv, {frac(w, 7, 20), yMid, frac(w, 13, 20), yLow});
    drawColourPatches(cv, {frac(w, 13, 20), yMid, w, yLow});
    drawGlyphRows(cv, {0, yLow, w, height});
    return img;
}

} // namespace convlab
