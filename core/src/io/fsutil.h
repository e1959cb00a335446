// SPDX-License-Identifier: GPL-3.0-or-later
// Where the engine keeps its caches and how it writes files so that no reader ever sees half of
// one. Every file the core writes goes through writeFileAtomically.
#pragma once
#include <filesystem>
#include <functional>
#include <string>

namespace convlab::detail {

// The user's cache directory for ConvLab: $XDG_CACHE_HOME/convlab, else $HOME/.cache/convlab;
// empty when neither variable is set (then nothing is cached). Not created here.
std::filesystem::path cacheDirectory();

// Calls writer(tmpPath) with a fresh, unique path in the target's directory (same file system,
// so the rename is atomic; same extension, so writers that choose the format by extension see
// the right one), then renames the temporary over `path`. Nothing is left half-written: on any
// failure or exception the temporary is removed and an existing `path` keeps its contents.
// Throws convlab::Error naming `path` (or rethrows what the writer threw).
void writeFileAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& writer);

} // namespace convlab::detail

