// SPDX-License-Identifier: GPL-3.0-or-later
// Built when the CUDA toolkit was not found at configure time.
#include "convlab/gpu.h"

namespace convlab {

bool cudaAvailable(std::string* reason)
{
    if (reason) *reason = "this build has no CUDA backend (no CUDA toolkit at configure time)";
    return false;
}

std::unique_ptr<GpuSession> startCudaSession(std::string* reason)
{
    cudaAvailable(reason);
    return nullptr;
}

} // namespace convlab
