// SPDX-License-Identifier: GPL-3.0-or-later
// The cache directory and the atomic writer (fsutil.h), and the public writeAtomically (io.h).
#include "fsutil.h"

#include <cstdio>
#include <cstdlib>
#include <random>

#include "convlab/error.h"
#include "convlab/io.h"

namespace fs = std::filesystem;

namespace convlab {
namespace detail {

fs::path cacheDirectory()
{
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "convlab";
    if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "convlab";
    return {};
}

namespace {

// .NAME.tmp-XXXXXXXXXXXXXXXX.EXT beside the target, a name no other file has: a hidden file,
// so that a listing of the folder does not show it while it is being written.
fs::path uniqueTemporary(const fs::path& dir, const fs::path& target)
{
    thread_local std::mt19937_64 rng = [] {
        std::random_device rd;
        return std::mt19937_64((std::uint64_t(rd()) << 32) ^ rd());
    }();
    const std::string stem = target.stem().string(), ext = target.extension().string();
    std::error_code ec;
    fs::path tmp;
    do {
        char name[32];
        std::snprintf(name, sizeof name, ".tmp-%016llx", static_cast<unsigned long long>(rng()));
        tmp = dir / (std::string(1, '.').append(stem).append(name).append(ext));
    } while (fs::exists(tmp, ec));
    return tmp;
}

} // namespace

void writeFileAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& writer)
{
    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("cannot write '" + path + "': output directory '" + dir.string() + "' does not exist");
    if (fs::is_directory(target, ec)) throw Error("cannot write '" + path + "': it is a directory");

    const fs::path tmp = uniqueTemporary(dir, target);
    try {
        writer(tmp.string());
        if (!fs::is_regular_file(tmp, ec)) throw Error("cannot write '" + path + "': the writer produced no file");
        fs::rename(tmp, target, ec);
        if (ec) throw Error("cannot write '" + path + "': " + ec.message());
    } catch (...) {
        fs::remove(tmp, ec);
        throw;
    }
}

} // namespace detail

void writeAtomically(const std::string& path, const std::function<void(const std::string& tmpPath)>& write)
{
    detail::writeFileAtomically(path, write);
}

} // namespace convlab
