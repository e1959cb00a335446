#version 330 core
// SPDX-License-Identifier: GPL-3.0-or-later
// (#version must be the first line of a GLSL shader.)
// Maps float images (one GL_R32F array layer per channel, planar as the engine stores them)
// to display colours. Geometry is in device-independent widget pixels, y down.

struct Layer {
    int channels;  // 0: nothing to draw; 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA
    vec2 size;     // width, height in image pixels
    float range;   // top of the nominal range: 255 (8-bit), 65535 (16-bit), 1 (float)
    float lo;      // min over the colour channels (Normalize)
    float hi;      // max over the colour channels (Normalize)
    float maxAbs;  // max |v| (Diverging; for the difference image, over all channels)
};

uniform sampler2DArray uSourceTex;
uniform sampler2DArray uResultTex;
uniform sampler2DArray uDiffTex;
uniform Layer uSource;
uniform Layer uResult;
uniform Layer uDiff;

uniform int uMapping;    // 0 Clamp, 1 Abs, 2 Normalize, 3 Offset, 4 Diverging
uniform int uViewMode;   // 0 Result, 1 Original, 2 Split, 3 Difference
uniform vec2 uOrigin;    // widget position of the image's top-left corner
uniform float uZoom;     // widget pixels per image pixel
uniform float uDpr;      // device pixels per widget pixel
uniform float uFbHeight; // framebuffer height in device pixels
uniform float uSplitX;   // divider position in widget pixels (Split)
uniform vec3 uBackground;

out vec4 fragColor;

const vec3 kNegative = vec3(0.13, 0.40, 0.67); // diverging map: -max|v|
const vec3 kPositive = vec3(0.70, 0.09, 0.17); // diverging map: +max|v|
const float kTiny = 1e-30;

float mapValue(float v, Layer L)
{
    if (uMapping == 1)
        return clamp(abs(v) / L.range, 0.0, 1.0);
    if (uMapping == 2)
        return clamp((v - L.lo) / max(L.hi - L.lo, kTiny), 0.0, 1.0);
    if (uMapping == 3)
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

vec3 shade(sampler2DArray tex, Layer L, vec2 p, vec2 w)
{
    vec2 uv = p / L.size;
    bool hasAlpha = L.channels == 2 || L.channels == 4;
    int colour = hasAlpha ? L.channels - 1 : L.channels;
    vec3 v = vec3(channel(tex, uv, 0));
    if (colour == 3)
        v = vec3(v.r, channel(tex, uv, 1), channel(tex, uv, 2));
    vec3 rgb = uMapping == 4 ? diverging((v.r + v.g + v.b) / 3.0, L.maxAbs)
                             : vec3(mapValue(v.r, L), mapValue(v.g, L), mapValue(v.b, L));
    if (hasAlpha)
        rgb = mix(checker(w), rgb, clamp(channel(tex, uv, colour) / L.range, 0.0, 1.0));
    return rgb;
}

vec3 shadeDifference(vec2 p)
{
    vec2 uv = p / uDiff.size;
    float m = 0.0;
    for (int c = 0; c < uDiff.channels; ++c)
        m = max(m, abs(channel(uDiffTex, uv, c)));
    return heat(clamp(m / max(uDiff.maxAbs, kTiny), 0.0, 1.0));
}

void main()
{
    vec2 w = vec2(gl_FragCoord.x, uFbHeight - gl_FragCoord.y) / uDpr;
    vec2 p = (w - uOrigin) / uZoom;
    vec3 c = uBackground;
    if (uViewMode == 1 || (uViewMode == 2 && w.x < uSplitX)) {
        if (inside(p, uSource))
            c = shade(uSourceTex, uSource, p, w);
    } else if (uViewMode == 3) {
        if (inside(p, uDiff))
            c = shadeDifference(p);
    } else if (inside(p, uResult)) {
        c = shade(uResultTex, uResult, p, w);
    }
    if (uViewMode == 2 && floor(gl_FragCoord.x) == floor(uSplitX * uDpr))
        c = vec3(0.92);
    fragColor = vec4(c, 1.0);
}
