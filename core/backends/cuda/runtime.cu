// SPDX-License-Identifier: GPL-3.0-or-later
// CUDA presence check through the runtime API (static cudart): works, and reports why not, on
// machines without a driver or a device.
#include <cuda_runtime.h>

#include <string>

#include "convlab/convolve.h"

namespace convlab {

bool cudaAvailable(std::string* reason)
{
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        if (reason) *reason = std::string(cudaGetErrorName(err)) + ": " + cudaGetErrorString(err);
        cudaGetLastError(); // clear the sticky error
        return false;
    }
    if (count == 0) {
        if (reason) *reason = "no CUDA device found";
        return false;
    }
    if (reason) reason->clear();
    return true;
}

} // namespace convlab
