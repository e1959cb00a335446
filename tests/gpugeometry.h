// SPDX-License-Identifier: GPL-3.0-or-later
// The device geometry (core/backends/cuda/tiles.h) of a correlation-form kernel over an image, and the
// CPU reference it must reproduce, for the tests that run the GPU's index maths on the CPU.
#pragma once
#include "convlab/convolve.h"
#include "convlab/image.h"
#include "convlab/kernel.h"
#include "tiles.h"

namespace convlab::test {

inline cuda::Geometry geometryFor(const Image& in, int kw, int kh, int ax, int ay, BorderMode mode, float cval,
                                  float scale, float offset)
{
    cuda::Geometry g;
    g.w = in.width;
    g.h = in.height;
    g.channels = in.channels;
    g.kw = kw;
    g.kh = kh;
    g.ax = ax;
    g.ay = ay;
    g.mode = mode;
    g.cval = cval;
    g.scale = scale;
    g.offset = offset;
    return g;
}

inline cuda::Geometry geometryFor(const Image& in, const Kernel& k, BorderMode mode, float cval, float scale,
                                  float offset)
{
    return geometryFor(in, k.width, k.height, k.ax(), k.ay(), mode, cval, scale, offset);
}

// The CPU reference of what that geometry computes: the correlation with the border rule, then
// scale and offset.
inline Image referenceFor(const Image& in, const Kernel& k, BorderMode mode, float cval, float scale, float offset)
{
    ConvolveParams p;
    p.kernel = k;
    p.semantics = Semantics::Correlation;
    p.border = {mode, cval};
    p.scale = scale;
    p.offset = offset;
    p.method = Method::Reference;
    p.device = Device::Cpu;
    return convolve(in, p);
}

} // namespace convlab::test
