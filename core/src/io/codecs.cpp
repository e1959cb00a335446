// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/codecs.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "convlab/error.h"

namespace convlab::detail {
namespace {

struct Opened {
    const convlab_codecs* codecs = nullptr;
    std::string why; // when codecs is null: what was tried
};

std::string runningProgramDir()
{
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

std::vector<std::string> candidates()
{
    if (const char* chosen = std::getenv("CONVLAB_CODECS"); chosen && *chosen) return {chosen};
    std::vector<std::string> paths;
    if (const std::string dir = runningProgramDir(); !dir.empty())
        paths.push_back((std::filesystem::path(dir) / CONVLAB_CODECS_FROM_BINDIR / "libconvlab-codecs.so").lexically_normal());
    if (std::find(paths.begin(), paths.end(), CONVLAB_CODECS_BUILD_PATH) == paths.end()) // programs in the build
        paths.push_back(CONVLAB_CODECS_BUILD_PATH);
    return paths;
}

Opened open()
{
    Opened o;
    for (const std::string& path : candidates()) {
        std::error_code ec;
        if (!std::filesystem::exists(path, ec)) {
            o.why += (o.why.empty() ? "" : "; ") + path + ": no such file";
            continue;
        }
        void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL); // kept open for the process's life
        const char* failure = lib ? nullptr : dlerror();
        const auto entry = lib ? reinterpret_cast<convlab_codecs_entry>(dlsym(lib, CONVLAB_CODECS_ENTRY)) : nullptr;
        const convlab_codecs* codecs = entry ? entry() : nullptr;
        if (codecs && codecs->abi_version == CONVLAB_CODECS_ABI) {
            o.codecs = codecs;
            return o;
        }
        o.why += (o.why.empty() ? "" : "; ") + path + ": " +
                 (failure ? std::string(failure)
                          : codecs ? "interface version " + std::to_string(codecs->abi_version) + ", not " +
                                         std::to_string(CONVLAB_CODECS_ABI)
                                   : std::string("not a ConvLab codec module"));
        if (lib) dlclose(lib);
    }
    return o;
}

const Opened& opened()
{
    static const Opened o = open();
    return o;
}

} // namespace

const convlab_codecs& imageCodecs(const std::string& context)
{
    const Opened& o = opened();
    if (!o.codecs) throw Error(context + ": image formats are unavailable: " + imageCodecsProblem());
    return *o.codecs;
}

std::string imageCodecsProblem()
{
    const Opened& o = opened();
    return o.codecs ? std::string() : "cannot open the codec module (" + o.why + ")";
}

} // namespace convlab::detail
