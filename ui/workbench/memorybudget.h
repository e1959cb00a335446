// SPDX-License-Identifier: GPL-3.0-or-later
// Whether the workbench can hold an image: what it keeps per image (the original, the result and
// two recycled result buffers, a comparison's result and its difference, and the view's copies)
// against the memory the system says is available, so that an image too large is refused with
// the size it needs before any of that is allocated, and the previous image stays.
#pragma once
#include <QString>
#include <cstdint>
#include <optional>

namespace memorybudget {

// Bytes the workbench holds for a width x height x channels float image (the factor is the
// count of image-sized float buffers listed above).
std::uint64_t workingSetBytes(int width, int height, int channels);
// MemAvailable from /proc/meminfo; nullopt where it cannot be read (nothing is refused then).
std::optional<std::uint64_t> availableBytes();
// The refusal's text, or an empty string when the image fits. `available` as availableBytes()
// gives it; `alreadyHeld` (the decoded original, already in memory) is not counted twice.
QString refusal(int width, int height, int channels, std::optional<std::uint64_t> available,
                std::uint64_t alreadyHeld = 0);

} // namespace memorybudget
