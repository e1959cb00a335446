// SPDX-License-Identifier: GPL-3.0-or-later
// The one translation of a CUDA status into convlab::Error, for every file of the backend.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "convlab/error.h"

namespace convlab::cuda {

// Throws convlab::Error("CUDA <what>: <reason>") unless `err` is cudaSuccess. The last-error
// state is cleared first, so that the next call does not report this failure again.
inline void check(cudaError_t err, const char* what)
{
    if (err == cudaSuccess) return;
    cudaGetLastError();
    throw Error(std::string("CUDA ") + what + ": " + cudaGetErrorString(err));
}

} // namespace convlab::cuda
