#version 330 core
// SPDX-License-Identifier: GPL-3.0-or-later
// (#version must be the first line of a GLSL shader.)
// Maps float images (one GL_R32F array layer per channel, planar as the engine stores them)
// to display colours. Images the view holds on the host come as their colours instead (RGBA8,
// mapped on the CPU by ui/view/displaymap.cpp, the twin of mapValue, diverging, display and
// displayOne here: change both). Geometry is in device-independent widget pixels, y down.

struct Layer {
    int channels;  // 0: nothing to draw; 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    int premapped; // 1: drawn from its colour texture (alpha in .a), not its float layers
    vec2 size;     // width, height in image pixels
    vec2 span;     // image pixels the texture covers (size, or whole blocks of a reduced copy)
    vec2 offset;   // image pixel of the texture's first texel (colours of a region of the image)
    vec2 factor;   // image pixels per texel along x and y (1 unless the image exceeds the limit)
    float range;   // top of the nominal range: 255 (8-bit), 65535 (16-bit), 1 (float)
    float lo;      // min over the colour channels (Normalize)
    float hi;      // max over the colour channels (Normalize)
    float maxAbs;  // max |v| (Diverging; for the difference image, over all channels)
};

uniform sampler2DArray uSourceTex;
uniform sampler2DArray uResultTex;
uniform sampler2DArray uDiffTex;
uniform sampler2D uSourceColours;
uniform sampler2D uResultColours;
uniform Layer uSource;
uniform Layer uResult;
uniform Layer uDiff;

uniform int uMapping;    // the result's: 0 Clamp, 1 Abs, 2 Normalize, 3 Offset, 4 Diverging
uniform int uChannel;    // View > Channel: the one channel drawn, as grey; -1 every channel
uniform int uViewMode;   // 0 Result, 1 Original, 2 Split, 3 Difference
uniform vec2 uOrigin;    // widget position of the image's top-left corner
uniform float uZoom;     // widget pixels per image pixel
uniform float uDpr;      // device pixels per widget pixel
uniform float uFbHeight; // framebuffer height in device pixels
uniform float uSplitX;   // divider position in widget pixels (Split)
uniform vec3 uBackground;
uniform vec2 uImageSize;    // the displayed image's size (the geometry: result, else source)
uniform int uPadMargin;     // padding preview: margin in image pixels, 0 = off
// Where each margin pixel takes its sample, per axis: the engine's own border rule
// (convlab/border.h, borderIndex) evaluated on the CPU for the margin's coordinates, so no
// mode is written twice; -1 is the constant. p = -margin..-1 is at [p + margin], p = n..n+margin-1
// at [margin + p - n]. 256 = 2 x ImageView::kMaxPaddingMargin.
uniform int uPadIndexX[256];
uniform int uPadIndexY[256];
uniform float uBorderValue; // the constant's value (every channel)
uniform vec4 uBandInner;    // band overlay: inner rectangle x0, y0, x1, y1 (image px); x0 < 0 = none
uniform float uDiffScale;   // the |difference| drawn white by the heat map

out vec4 fragColor;

// heat() and diverging() have CPU twins in ui/view/colorbar.cpp (the colour bar): change both.
const vec3 kNegative = vec3(0.13, 0.40, 0.67); // diverging map: -max|v|
const vec3 kPositive = vec3(0.70, 0.09, 0.17); // diverging map: +max|v|
const int kClamp = 0;                          // the mapping of the original
const float kTiny = 1e-30;
const vec3 kPadTint = vec3(0.0, 0.0, 1.0);   // invented pixels are blended towards blue ...
const float kPadTintWeight = 0.3;            // ... by 30%
const vec3 kOutline = vec3(1.0, 0.85, 0.0);  // the image boundary in the padding preview
const vec3 kBandLine = vec3(0.0, 0.9, 1.0);  // the band overlay's inner edge

float mapValue(float v, Layer L, int mapping)
{
    if (mapping == 1)
        return clamp(abs(v) / L.range, 0.0, 1.0);
    if (mapping == 2)
        return clamp((v - L.lo) / max(L.hi - L.lo, kTiny), 0.0, 1.0);
    if (mapping == 3)
        return clamp(v / L.range + 0.5, 0.0, 1.0);
    return clamp(v / L.range, 0.0, 1.0);
}

// White at 0, blue for negative, red for positive values, symmetric in max|v|.
vec3 diverging(float v, float maxAbs)
{
    float t = clamp(v / max(maxAbs, kTiny), -1.0, 1.0);
    return t < 0.0 ? mix(vec3(1.0), kNegative, -t) : mix(vec3(1.0), kPositive, t);
}

// Black -> red -> yellow -> white as t goes 0 -> 1.
vec3 heat(float t)
{
    return clamp(vec3(3.0 * t, 3.0 * t - 1.0, 3.0 * t - 2.0), 0.0, 1.0);
}

// 8 px cells of two greys, fixed to the widget, behind transparent pixels.
vec3 checker(vec2 w)
{
    ivec2 cell = ivec2(floor(w / 8.0));
    return ((cell.x + cell.y) & 1) == 1 ? vec3(0.40) : vec3(0.60);
}

bool inside(vec2 p, Layer L)
{
    return L.channels > 0 && all(greaterThanEqual(p, vec2(0.0))) && all(lessThan(p, L.size));
}

float channel(sampler2DArray tex, vec2 uv, int c)
{
    return texture(tex, vec3(uv, float(c))).r;
}

bool hasAlpha(Layer L)
{
    return L.channels == 2 || L.channels == 4;
}

int colourChannels(Layer L)
{
    return hasAlpha(L) ? L.channels - 1 : L.channels;
}

// Display colour of one pixel's values: colour channels in xyz (grey repeated), alpha in w.
vec3 display(Layer L, vec4 v, vec2 w, int mapping)
{
    vec3 rgb = mapping == 4 ? diverging((v.r + v.g + v.b) / 3.0, L.maxAbs)
                            : vec3(mapValue(v.r, L, mapping), mapValue(v.g, L, mapping), mapValue(v.b, L, mapping));
    if (hasAlpha(L))
        rgb = mix(checker(w), rgb, clamp(v.a / L.range, 0.0, 1.0));
    return rgb;
}

// One channel's value as grey under the mapping (the diverging map keeps its colours).
vec3 displayOne(Layer L, float v, int mapping)
{
    return mapping == 4 ? diverging(v, L.maxAbs) : vec3(mapValue(v, L, mapping));
}

vec3 shade(sampler2DArray tex, Layer L, vec2 p, vec2 w, int mapping)
{
    vec2 uv = (p - L.offset) / L.span;
    if (uChannel >= 0)
        return displayOne(L, channel(tex, uv, min(uChannel, L.channels - 1)), mapping);
    int colour = colourChannels(L);
    vec4 v = vec4(channel(tex, uv, 0));
    if (colour == 3)
        v.gb = vec2(channel(tex, uv, 1), channel(tex, uv, 2));
    if (hasAlpha(L))
        v.a = channel(tex, uv, colour);
    return display(L, v, w, mapping);
}

// The same for an image whose colours were mapped on the CPU: only the checkerboard behind
// transparent pixels is left to do.
vec3 shadeColours(vec4 c, Layer L, vec2 w)
{
    return uChannel < 0 && hasAlpha(L) ? mix(checker(w), c.rgb, c.a) : c.rgb;
}

vec3 shadeLayer(sampler2DArray tex, sampler2D colours, Layer L, vec2 p, vec2 w, int mapping)
{
    return L.premapped != 0 ? shadeColours(texture(colours, (p - L.offset) / L.span), L, w) : shade(tex, L, p, w, mapping);
}

// A coordinate of the padded image: itself inside [0, n), else the rule's entry (-1: constant).
int marginSlot(int p, int n)
{
    return clamp(p < 0 ? p + uPadMargin : uPadMargin + p - n, 0, 2 * uPadMargin - 1);
}

// A margin pixel of the padding preview: the source extended by the rule, tinted.
vec3 shadePadding(ivec2 ip, vec2 w)
{
    ivec2 n = ivec2(uSource.size);
    int x = ip.x >= 0 && ip.x < n.x ? ip.x : uPadIndexX[marginSlot(ip.x, n.x)];
    int y = ip.y >= 0 && ip.y < n.y ? ip.y : uPadIndexY[marginSlot(ip.y, n.y)];
    vec4 v = vec4(uBorderValue);
    if (uSource.premapped != 0 && x >= 0 && y >= 0) {
        ivec2 t = ivec2(floor((vec2(x, y) + 0.5) / uSource.factor)) - ivec2(uSource.offset);
        return mix(shadeColours(texelFetch(uSourceColours, t, 0), uSource, w), kPadTint, kPadTintWeight);
    }
    if (uChannel >= 0) {
        if (x >= 0 && y >= 0) {
            ivec2 t = ivec2(floor((vec2(x, y) + 0.5) / uSource.factor));
            v = vec4(texelFetch(uSourceTex, ivec3(t, min(uChannel, uSource.channels - 1)), 0).r);
        }
        return mix(displayOne(uSource, v.r, kClamp), kPadTint, kPadTintWeight);
    }
    if (x >= 0 && y >= 0) {
        int colour = colourChannels(uSource);
        ivec2 t = ivec2(floor((vec2(x, y) + 0.5) / uSource.factor)); // the texel of a reduced copy
        v = vec4(texelFetch(uSourceTex, ivec3(t, 0), 0).r);
        if (colour == 3)
            v.gb = vec2(texelFetch(uSourceTex, ivec3(t, 1), 0).r, texelFetch(uSourceTex, ivec3(t, 2), 0).r);
        if (hasAlpha(uSource))
            v.a = texelFetch(uSourceTex, ivec3(t, colour), 0).r;
    }
    return mix(display(uSource, v, w, kClamp), kPadTint, kPadTintWeight);
}

// Whether widget point e (relative to a rectangle's top-left corner) lies in the one device
// pixel wide ring just outside a rectangle of the given widget size.
bool ringOutside(vec2 e, vec2 size)
{
    vec2 d = max(-e, e - size) * uDpr;
    float m = max(d.x, d.y);
    return m > 0.0 && m < 1.0;
}

vec3 shadeDifference(vec2 p)
{
    vec2 uv = (p - uDiff.offset) / uDiff.span;
    float m = 0.0;
    for (int c = 0; c < uDiff.channels; ++c)
        if (uChannel < 0 || c == uChannel)
            m = max(m, abs(channel(uDiffTex, uv, c)));
    return heat(clamp(m / max(uDiffScale, kTiny), 0.0, 1.0));
}

#ifdef RESULT_COLOURS_ONLY
// The program of the frame that shows the result alone from its colours (ImageView picks it:
// View > Result, no padding preview, a result mapped on the CPU): what main() below does in
// that case, without the work a software renderer spends on the branches it would not take.
void main()
{
    vec2 w = vec2(gl_FragCoord.x, uFbHeight - gl_FragCoord.y) / uDpr;
    vec2 p = (w - uOrigin) / uZoom;
    vec3 c = uBackground;
    if (inside(p, uResult))
        c = shadeColours(texture(uResultColours, (p - uResult.offset) / uResult.span), uResult, w);
    if (uBandInner.x >= 0.0 && all(greaterThanEqual(p, vec2(0.0))) && all(lessThan(p, uImageSize)) &&
        ringOutside(w - uOrigin - uBandInner.xy * uZoom, (uBandInner.zw - uBandInner.xy) * uZoom))
        c = kBandLine;
    fragColor = vec4(c, 1.0);
}
#else
void main()
{
    vec2 w = vec2(gl_FragCoord.x, uFbHeight - gl_FragCoord.y) / uDpr;
    vec2 p = (w - uOrigin) / uZoom;
    vec3 c = uBackground;
    float m = float(uPadMargin);
    bool inImage = all(greaterThanEqual(p, vec2(0.0))) && all(lessThan(p, uImageSize));
    if (uPadMargin > 0 && !inImage) {
        // The margin shows what the kernel reads there: the source extended by the rule.
        if (uSource.channels > 0 && all(greaterThanEqual(p, vec2(-m))) && all(lessThan(p, uSource.size + m)))
            c = shadePadding(ivec2(floor(p)), w);
    } else if (uViewMode == 1 || (uViewMode == 2 && w.x < uSplitX)) {
        if (inside(p, uSource))
            c = shadeLayer(uSourceTex, uSourceColours, uSource, p, w, kClamp); // colour maps are for the result only
    } else if (uViewMode == 3) {
        if (inside(p, uDiff))
            c = shadeDifference(p);
    } else if (inside(p, uResult)) {
        c = shadeLayer(uResultTex, uResultColours, uResult, p, w, uMapping);
    }
    if (uBandInner.x >= 0.0 && inImage &&
        ringOutside(w - uOrigin - uBandInner.xy * uZoom, (uBandInner.zw - uBandInner.xy) * uZoom))
        c = kBandLine;
    if (uPadMargin > 0 && ringOutside(w - uOrigin, uImageSize * uZoom))
        c = kOutline;
    if (uViewMode == 2 && floor(gl_FragCoord.x) == floor(uSplitX * uDpr))
        c = vec3(0.92);
    fragColor = vec4(c, 1.0);
}
#endif
