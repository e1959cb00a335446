// SPDX-License-Identifier: GPL-3.0-or-later
// Shared by the fuzz targets: a scratch file for the readers that take a path, and the one rule
// every target applies, that a refused input is a convlab::Error and nothing else.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace convlab::fuzz {

// A broken invariant: print why and abort, so libFuzzer saves the input as a crash.
[[noreturn]] inline void fail(const std::string& why)
{
    std::fprintf(stderr, "convlab fuzz: invariant broken: %s\n", why.c_str());
    std::fflush(stderr);
    std::abort();
}

inline void require(bool condition, const std::string& why)
{
    if (!condition) fail(why);
}

// The readers under test open files by name (the CLI and the workbench hand them paths), so each
// input goes through a real file: `name` in a folder of this process, rewritten each run, the
// folder removed when the process exits normally.
class ScratchFile {
public:
    explicit ScratchFile(const std::string& name)
    {
        namespace fs = std::filesystem;
        const fs::path dir = fs::temp_directory_path() / ("convlab-fuzz-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        path_ = (dir / name).string();
        dir_ = dir.string();
    }
    ~ScratchFile()
    {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;

    const std::string& write(const std::uint8_t* data, std::size_t size)
    {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
        out.close();
        if (!out) fail("cannot write the scratch file " + path_);
        return path_;
    }
    const std::string& path() const { return path_; }
    const std::string& folder() const { return dir_; }

private:
    std::string path_;
    std::string dir_;
};

} // namespace convlab::fuzz
