// SPDX-License-Identifier: GPL-3.0-or-later
// Code export: the current filter as a snippet for scipy.ndimage, cupyx.scipy.ndimage,
// OpenCV (Python and C++) or dask. The translations, checked against the engine by the tests:
//  - scipy/cupyx: correlate/convolve with origin = anchor - size // 2 on both axes (the same
//    formula for both functions); the mode= of the border mode's row in borderModes()
//    (convlab/modes.h), plus cval for a mode that takes a value.
//  - OpenCV: filter2D correlates with the anchor given, so convolution flips the kernel both
//    ways and mirrors the anchor; the row's OpenCV flag goes to filter2D when filter2D applies
//    it (its constant is zero), else copyMakeBorder pads by the kernel's reach first, filter2D
//    runs on the padded image, and the padding is cropped away.
//  - dask: convlab.dask with scipy's arguments (the same origin and mode=), or, without the
//    module, dask_image.ndfilters, which takes the same arguments.
#include <array>
#include <charconv>
#include <cmath>
#include <sstream>

#include "convlab/export.h"
#include "convlab/error.h"
#include "convlab/modes.h"
#include "methods/methods.h"

namespace convlab {
namespace {

constexpr std::array<std::pair<ExportTarget, const char*>, 5> kTargets{{
    {ExportTarget::Scipy, "scipy"},
    {ExportTarget::OpencvPython, "opencv-python"},
    {ExportTarget::OpencvCpp, "opencv-cpp"},
    {ExportTarget::Cupy, "cupy"},
    {ExportTarget::Dask, "dask"},
}};

// Shortest spelling that reads back as the same value.
template <class T> std::string shortest(T v)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

std::string cppFloat(float v)
{
    std::string s = shortest(v);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s + "f";
}

// What every target needs, resolved once.
struct Plan {
    const ConvolveParams& p;
    Kernel applied; // correlation form
    double scale = 1.0;
    std::vector<std::string> notices;
    bool convolution() const { return p.semantics == Semantics::Convolution; }
};

std::string header(const Plan& plan, const char* comment)
{
    const ConvolveParams& p = plan.p;
    const Kernel& k = p.kernel;
    std::ostringstream s;
    s << comment << " ConvLab: " << (plan.convolution() ? "convolution" : "correlation") << " with the " << k.width
      << 'x' << k.height << " kernel";
    if (!k.name.empty()) s << " '" << k.name << '\'';
    s << ", anchor (" << k.ax() << ',' << k.ay() << "), border " << borderName(p.border.mode);
    if (borderModeInfo(p.border.mode).takesValue) s << '(' << shortest(p.border.value) << ')';
    s << ", scale " << shortest(plan.scale) << (p.normalize ? " (normalized)" : "") << ", offset "
      << shortest(p.offset) << '\n';
    for (const std::string& n : plan.notices) s << comment << " note: " << n << '\n';
    return s.str();
}

// The kernel as a numpy float32 array literal, one row per line.
std::string numpyKernel(const Kernel& k)
{
    std::ostringstream s;
    s << "np.array([";
    for (int v = 0; v < k.height; ++v) {
        s << (v ? ",\n              " : "") << '['; // aligned under "k = np.array(["
        for (int u = 0; u < k.width; ++u) s << (u ? ", " : "") << shortest(k.at(v, u));
        s << ']';
    }
    s << "], dtype=np.float32)";
    return s.str();
}

// The border mode's scipy.ndimage name; an error where scipy has none.
const BorderModeInfo& scipyBorder(const Border& b)
{
    const BorderModeInfo& border = borderModeInfo(b.mode);
    if (!border.scipy)
        throw Error(std::string("scipy.ndimage has no border mode like ConvLab's '") + border.name + "'");
    return border;
}

// scipy's origin of the kernel's anchor, as a Python tuple line.
std::string scipyOrigin(const Kernel& k)
{
    std::ostringstream s;
    s << "# origin = anchor - size // 2, as (row, column); the same rule for convolve and correlate.\n";
    s << "origin = (" << k.ay() - k.height / 2 << ", " << k.ax() - k.width / 2 << ")\n";
    return s.str();
}

// The arguments after the kernel in a scipy-style call: mode=, cval= where it applies, origin=.
std::string scipyArguments(const BorderModeInfo& border, const Border& b, const char* origin)
{
    std::string s = std::string("mode=\"") + border.scipy + '"';
    if (border.takesValue) s += ", cval=" + shortest(b.value);
    return s + ", origin=" + origin;
}

std::string scaled(const Plan& plan, const char* value)
{
    std::ostringstream s;
    s << '(' << shortest(plan.scale) << " * " << value << " + " << shortest(plan.p.offset) << ')';
    return s.str();
}

std::string scipyLike(const Plan& plan, bool cupy)
{
    const ConvolveParams& p = plan.p;
    const Kernel& k = p.kernel;
    const BorderModeInfo& border = scipyBorder(p.border);
    std::ostringstream s;
    s << header(plan, "#");
    s << "import numpy as np\n";
    if (cupy) s << "import cupy as cp\nfrom cupyx.scipy import ndimage\n";
    else s << "from scipy import ndimage\n";
    s << "\n# ConvLab kernels hold float32 values; the filter runs in float64.\n";
    s << "k = " << numpyKernel(k) << ".astype(np.float64)\n";
    s << scipyOrigin(k);
    s << "src = " << (cupy ? "cp" : "np") << ".asarray(img, dtype=" << (cupy ? "cp" : "np") << ".float64)\n";
    s << "if src.ndim == 3:  # (H, W, C): a size-1 kernel axis filters each channel on its own\n"
      << "    k, origin = k[:, :, None], origin + (0,)\n";
    s << "out = ndimage." << (plan.convolution() ? "convolve" : "correlate") << "(src, "
      << (cupy ? "cp.asarray(k)" : "k") << ", " << scipyArguments(border, p.border, "origin") << ")\n";
    s << "out = " << scaled(plan, "out") << (cupy ? ".get().astype(np.float32)\n" : ".astype(np.float32)\n");
    return s.str();
}

// convlab.dask where it is installed, else dask_image.ndfilters with the same arguments: both
// read scipy's mode names and origin, and keep the input's chunks.
std::string daskCode(const Plan& plan)
{
    const ConvolveParams& p = plan.p;
    const Kernel& k = p.kernel;
    const BorderModeInfo& border = scipyBorder(p.border);
    const char* function = plan.convolution() ? "convolve" : "correlate";
    std::ostringstream s;
    s << header(plan, "#");
    s << "import numpy as np\nimport dask.array as da\n\n";
    s << "k = " << numpyKernel(k) << '\n';
    s << scipyOrigin(k);
    s << "src = da.asarray(img).astype(np.float32)  # (H, W) or (H, W, C), any chunks; the result keeps them\n";
    s << "kk, oo = (k[:, :, None], origin + (0,)) if src.ndim == 3 else (k, origin)  # scipy's weights for (H, W, C)\n";
    s << "try:\n";
    s << "    import convlab.dask  # ConvLab's engine on every chunk, float32, every border mode exact\n";
    s << "    out = convlab.dask." << function << "(src, kk, " << scipyArguments(border, p.border, "oo") << ")\n";
    s << "except ImportError:\n";
    s << "    # Without ConvLab: scipy.ndimage on every chunk (dask-image), in float64.\n";
    s << "    from dask_image import ndfilters\n";
    s << "    out = ndfilters." << function << "(src.astype(np.float64), kk.astype(np.float64), "
      << scipyArguments(border, p.border, "oo") << ")\n";
    s << "out = " << scaled(plan, "out") << ".astype(np.float32)  # lazy: out.compute() runs it\n";
    return s.str();
}

// OpenCV border handling: the flag, and whether filter2D cannot apply it alone (then
// copyMakeBorder pads with it first).
struct CvBorder {
    const char* flag;
    bool pad;
    std::string missing; // what filter2D lacks, for the comment: "wrap border"
};
CvBorder cvBorder(const Border& b)
{
    const BorderModeInfo& info = borderModeInfo(b.mode);
    if (!info.opencv) throw Error(std::string("OpenCV has no border type like ConvLab's '") + info.name + "'");
    const bool nonZeroConstant = info.takesValue && b.value != 0.0f; // filter2D's constant is 0
    const bool pad = !info.opencvFilter2D || nonZeroConstant;
    return {info.opencv, pad, std::string(nonZeroConstant ? "non-zero " : "") + info.name + " border"};
}

std::string opencvPython(const Plan& plan)
{
    const ConvolveParams& p = plan.p;
    const Kernel& k = p.kernel;
    const Kernel& a = plan.applied;
    const CvBorder b = cvBorder(p.border);
    std::ostringstream s;
    s << header(plan, "#");
    s << "import numpy as np\nimport cv2\n\n";
    s << "# ConvLab kernels hold float32 values; the filter runs in float64.\n";
    s << "k = " << numpyKernel(k) << ".astype(np.float64)\n";
    if (plan.convolution()) {
        s << "# cv2.filter2D computes a correlation: for a convolution flip the kernel both ways and\n"
          << "# mirror the anchor, (w - 1 - ax, h - 1 - ay).\n"
          << "k = cv2.flip(k, -1)\n";
    }
    s << "anchor = (" << a.ax() << ", " << a.ay() << ")  # (x, y)\n";
    s << "src = np.asarray(img, dtype=np.float64)\n";
    if (b.pad) {
        s << "# filter2D has no " << b.missing
          << ": pad by the kernel's reach with copyMakeBorder,\n# filter, and crop the padding away.\n";
        s << "top, bottom, left, right = " << a.ay() << ", " << a.height - 1 - a.ay() << ", " << a.ax() << ", "
          << a.width - 1 - a.ax() << '\n';
        s << "padded = cv2.copyMakeBorder(src, top, bottom, left, right, cv2." << b.flag;
        if (borderModeInfo(p.border.mode).takesValue) s << ", value=(" << shortest(p.border.value) << ",) * 4";
        s << ")\n";
        s << "out = cv2.filter2D(padded, -1, k, anchor=anchor, borderType=cv2.BORDER_CONSTANT)\n";
        s << "out = out[top:top + src.shape[0], left:left + src.shape[1]]\n";
    } else {
        s << "out = cv2.filter2D(src, -1, k, anchor=anchor, borderType=cv2." << b.flag << ")\n";
    }
    s << "out = " << scaled(plan, "out") << ".astype(np.float32).reshape(src.shape)\n";
    return s.str();
}

std::string opencvCpp(const Plan& plan)
{
    const ConvolveParams& p = plan.p;
    const Kernel& k = p.kernel;
    const Kernel& a = plan.applied;
    const CvBorder b = cvBorder(p.border);
    std::ostringstream s;
    s << header(plan, "//");
    s << "#include <opencv2/core.hpp>\n#include <opencv2/imgproc.hpp>\n\n";
    s << "// img: CV_32FC1..CV_32FC4. Returns ConvLab's result: CV_32F with the same channels.\n";
    s << "cv::Mat convlabFilter(const cv::Mat& img)\n{\n";
    s << "    // ConvLab kernels hold float32 values; the filter runs in double.\n";
    s << "    cv::Mat k = (cv::Mat_<float>(" << k.height << ", " << k.width << ") <<";
    for (int v = 0; v < k.height; ++v) {
        s << "\n        ";
        for (int u = 0; u < k.width; ++u)
            s << cppFloat(k.at(v, u)) << (v == k.height - 1 && u == k.width - 1 ? ");" : u == k.width - 1 ? "," : ", ");
    }
    s << "\n    k.convertTo(k, CV_64F);\n";
    if (plan.convolution()) {
        s << "    // filter2D computes a correlation: for a convolution flip the kernel both ways and\n"
          << "    // mirror the anchor, (w - 1 - ax, h - 1 - ay).\n"
          << "    cv::flip(k, k, -1);\n";
    }
    s << "    const cv::Point anchor(" << a.ax() << ", " << a.ay() << ");\n";
    s << "    cv::Mat src, out;\n    img.convertTo(src, CV_64F);\n";
    if (b.pad) {
        s << "    // filter2D has no " << b.missing
          << ": pad by the kernel's reach with copyMakeBorder,\n    // filter, and crop the padding away.\n";
        s << "    const int top = " << a.ay() << ", bottom = " << a.height - 1 - a.ay() << ", left = " << a.ax()
          << ", right = " << a.width - 1 - a.ax() << ";\n";
        s << "    cv::Mat padded;\n";
        s << "    cv::copyMakeBorder(src, padded, top, bottom, left, right, cv::" << b.flag;
        if (borderModeInfo(p.border.mode).takesValue) s << ", cv::Scalar::all(" << shortest(p.border.value) << ')';
        s << ");\n";
        s << "    cv::filter2D(padded, out, -1, k, anchor, 0, cv::BORDER_CONSTANT);\n";
        s << "    out = out(cv::Rect(left, top, img.cols, img.rows));\n";
    } else {
        s << "    cv::filter2D(src, out, -1, k, anchor, 0, cv::" << b.flag << ");\n";
    }
    s << "    out.convertTo(out, CV_32F, " << shortest(plan.scale) << ", " << shortest(p.offset) << ");\n";
    s << "    return out;\n}\n";
    return s.str();
}

} // namespace

ExportTarget parseExportTarget(std::string_view text)
{
    for (const auto& [t, name] : kTargets)
        if (text == name) return t;
    throw Error("unknown export target '" + std::string(text) + "' (expected " + exportTargetNames(", ") + ")");
}

std::string exportTargetNames(std::string_view separator)
{
    std::string names;
    for (const auto& [t, name] : kTargets) names += (names.empty() ? "" : std::string(separator)) + name;
    return names;
}

std::string exportTargetName(ExportTarget t)
{
    for (const auto& [target, name] : kTargets)
        if (target == t) return name;
    return "scipy";
}

std::string exportCode(const ConvolveParams& p, ExportTarget target)
{
    p.kernel.validate();
    if (!std::isfinite(p.scale) || !std::isfinite(p.offset) || !std::isfinite(p.border.value))
        throw Error("scale, offset and border constant must be finite numbers");
    Plan plan{p, correlationKernel(p.kernel, p.semantics), 1.0, {}};
    plan.scale = detail::effectiveScale(p, plan.notices);
    switch (target) {
    case ExportTarget::Scipy: return scipyLike(plan, false);
    case ExportTarget::Cupy: return scipyLike(plan, true);
    case ExportTarget::OpencvPython: return opencvPython(plan);
    case ExportTarget::OpencvCpp: return opencvCpp(plan);
    case ExportTarget::Dask: return daskCode(plan);
    }
    return {};
}

} // namespace convlab
