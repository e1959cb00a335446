// SPDX-License-Identifier: GPL-3.0-or-later
// The FFT callbacks of fftcallbacks.cu as the library embeds them: LTO IR for every target
// architecture in one fatbin (core/CMakeLists.txt), and the names cuFFT links them by.
#pragma once
#include <span>

namespace convlab::cuda {

std::span<const unsigned char> fftCallbacksFatbin();

inline constexpr const char* kFftLoadPadded = "convlabLoadPadded";     // forward load: the padded image
inline constexpr const char* kFftStoreProduct = "convlabStoreProduct"; // forward store: times the kernel
inline constexpr const char* kFftStoreCropped = "convlabStoreCropped"; // inverse store: the outputs

} // namespace convlab::cuda
