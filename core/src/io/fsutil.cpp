// SPDX-License-Identifier: GPL-3.0-or-later
// The cache directory and the atomic writer (fsutil.h), and the public writeAtomically (io.h).
#include "io/fsutil.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstring>
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
// The system's words for an errno, as the engine's messages write them: "permission denied".
std::string systemReason(int err)
{
    std::string text = std::strerror(err);
    if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
    return text;
}

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

// The temporaries being written now, for the interrupt handler: fixed slots of plain char
// arrays, claimed and released with atomics, because a signal handler may only read them and
// call unlink (async-signal-safe). A write that finds every slot taken just goes unregistered.
constexpr int kTempSlots = 16;
constexpr std::size_t kTempPathMax = 4096;
struct TempSlot {
    std::atomic<bool> used{false};
    std::atomic<bool> ready{false}; // the path is complete
    char path[kTempPathMax];
};
TempSlot gTemps[kTempSlots];

int registerTemporary(const std::string& path)
{
    if (path.size() >= kTempPathMax) return -1;
    for (int i = 0; i < kTempSlots; ++i) {
        bool expected = false;
        if (gTemps[i].used.compare_exchange_strong(expected, true)) {
            std::memcpy(gTemps[i].path, path.c_str(), path.size() + 1);
            gTemps[i].ready.store(true);
            return i;
        }
    }
    return -1;
}

void unregisterTemporary(int slot)
{
    if (slot < 0) return;
    gTemps[slot].ready.store(false);
    gTemps[slot].used.store(false);
}

// The program's name for the one line said on an interrupt (empty: say nothing).
char gInterruptedProgram[64] = {};

void writeStderr(const char* text) // async-signal-safe
{
    std::size_t n = 0;
    while (text[n]) ++n;
    while (n > 0) {
        const ssize_t w = ::write(2, text, n);
        if (w <= 0) return;
        text += w;
        n -= static_cast<std::size_t>(w);
    }
}

void removeTemporariesAndExit(int sig)
{
    bool removed = false;
    for (TempSlot& t : gTemps)
        if (t.ready.load()) removed = ::unlink(t.path) == 0 || removed;
    if (gInterruptedProgram[0]) {
        writeStderr(gInterruptedProgram);
        writeStderr(sig == SIGINT ? ": interrupted by SIGINT" : sig == SIGTERM ? ": stopped by SIGTERM" : ": stopped by SIGHUP");
        writeStderr(removed ? "; the unfinished output was removed\n" : "\n");
    }
    std::signal(sig, SIG_DFL); // then end the way the signal asks (a shell sees 128 + sig)
    std::raise(sig);
}

// Registered from creation to rename, whatever the writer does.
class TemporaryRegistration {
public:
    explicit TemporaryRegistration(const std::string& path) : slot_(registerTemporary(path)) {}
    ~TemporaryRegistration() { unregisterTemporary(slot_); }
    TemporaryRegistration(const TemporaryRegistration&) = delete;
    TemporaryRegistration& operator=(const TemporaryRegistration&) = delete;

private:
    int slot_;
};

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
    const TemporaryRegistration registration(tmp.string());
    // Tried here first, so that a folder the user may not write to is said in the system's
    // words ("permission denied"), which an encoder that fails to open its file would not say;
    // removed again, so that a writer that makes no file is still found out below.
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw Error("cannot write '" + path + "': " + systemReason(errno));
    ::close(fd);
    ::unlink(tmp.c_str());
    try {
        writer(tmp.string());
        if (!fs::is_regular_file(tmp, ec)) throw Error("cannot write '" + path + "': the writer produced no file");
        fs::rename(tmp, target, ec);
        if (ec) throw Error("cannot write '" + path + "': " + ec.message());
    } catch (const Error&) {
        // A writer that ran out of room may say only that it failed: the file system says why
        // (asked before the temporary goes, which frees its blocks).
        struct statvfs st {};
        const bool full = ::statvfs(dir.c_str(), &st) == 0 && st.f_bavail == 0;
        fs::remove(tmp, ec);
        if (full) throw Error("cannot write '" + path + "': " + systemReason(ENOSPC));
        throw;
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

void removeTemporariesOnInterrupt(const char* program)
{
    if (program) {
        std::size_t n = 0;
        for (; program[n] && n + 1 < sizeof detail::gInterruptedProgram; ++n) detail::gInterruptedProgram[n] = program[n];
        detail::gInterruptedProgram[n] = '\0';
    }
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
        struct sigaction action {};
        action.sa_handler = detail::removeTemporariesAndExit;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        ::sigaction(sig, &action, nullptr);
    }
}

} // namespace convlab
