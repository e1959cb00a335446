// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli's batch mode: one process filters many images. Three threads run at once: one
// decodes image i+1 while this one filters image i and another writes image i-1. They hand
// images over through small bounded queues, so that at most two decoded inputs and two results
// are in memory, whatever the length of the list. The engine's per-process state (the planner's
// cost model, the GPU session) is kept from image to image, and the results are filtered into
// reused buffers, so that images of the same shape cost no allocation.
#include "batch.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <semaphore>
#include <set>
#include <thread>

namespace convlab::cli {
namespace {

namespace fs = std::filesystem;

// ---- handing images from thread to thread ----

// A first-in first-out queue of at most `capacity` items; push waits for room, pop for an item.
// After close() pop drains what is left and then says the queue is done.
template <class T> class BoundedQueue {
public:
    explicit BoundedQueue(std::size_t capacity) : capacity_(capacity) {}

    void push(T item)
    {
        std::unique_lock lock(mutex_);
        room_.wait(lock, [&] { return items_.size() < capacity_; });
        items_.push_back(std::move(item));
        ready_.notify_one();
    }
    std::optional<T> pop()
    {
        std::unique_lock lock(mutex_);
        ready_.wait(lock, [&] { return !items_.empty() || closed_; });
        if (items_.empty()) return std::nullopt;
        T item = std::move(items_.front());
        items_.pop_front();
        room_.notify_one();
        return item;
    }
    void close()
    {
        std::lock_guard lock(mutex_);
        closed_ = true;
        ready_.notify_all();
    }

private:
    std::size_t capacity_;
    std::deque<T> items_;
    bool closed_ = false;
    std::mutex mutex_;
    std::condition_variable room_, ready_;
};

// An input as the decoding thread hands it on: the image, or why it could not be read.
struct Decoded {
    std::size_t index = 0;
    Source source;
    std::string error;
};

// A result as the filtering thread hands it on to be written.
struct Filtered {
    std::size_t index = 0;
    std::unique_ptr<Image> out; // a buffer of the pool; null when the input is skipped
    SaveOptions save;
    Json report;                      // --json: the single run's report
    std::string summary;              // otherwise: one line of text
    std::vector<std::string> notices; // the decoder's, the output depth's, the engine's
    std::string error, stage;         // a skipped input: why, and in which step (read, filter, write)
};

// What the message of a failure says.
std::string errorText(const std::exception& e)
{
    return dynamic_cast<const std::bad_alloc*>(&e) ? std::string("out of memory") : std::string(e.what());
}

// ---- reporting ----

// stderr for the batch's messages and its progress bar. It writes to its own copy of file
// descriptor 2, made before the decoding thread starts: while a file is decoded the core points
// fd 2 at a capture of what the codecs print (core/src/io/io_formats.cpp, StderrCapture), and a
// message written there from another thread would end up inside that image's notices instead
// of on the terminal.
class ErrorStream {
public:
    ErrorStream() : fd_(::dup(2)), terminal_(fd_ >= 0 && ::isatty(fd_)) {}
    ~ErrorStream()
    {
        if (fd_ >= 0) ::close(fd_);
    }
    ErrorStream(const ErrorStream&) = delete;
    ErrorStream& operator=(const ErrorStream&) = delete;

    bool terminal() const { return terminal_; }
    void write(const std::string& text) const
    {
        const char* p = text.data();
        std::size_t n = text.size();
        while (n > 0 && fd_ >= 0) {
            const ssize_t w = ::write(fd_, p, n);
            if (w <= 0) return; // stderr gone: nothing better to say it on
            p += w;
            n -= std::size_t(w);
        }
    }
    // The terminal's width, for a bar that never wraps (80 when it does not say).
    std::size_t columns() const
    {
        winsize ws{};
        return ::ioctl(fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
    }

private:
    int fd_;
    bool terminal_;
};

// Says what became of each image, in input order: one line on stdout (text, or a JSON object
// with --json), messages on stderr, and, when stderr is a terminal, a progress bar redrawn on
// its last line (cleared before any other line is written, so lines never interleave with it).
class Reporter {
public:
    Reporter(const BatchJob& job, const ErrorStream& err) : job_(job), err_(err) { drawBar(); }

    void done(const Filtered& f)
    {
        clearBar();
        const std::string& in = job_.inputs[f.index];
        if (f.error.empty()) {
            ++written_;
            if (!job_.json)
                for (const std::string& n : f.notices) // said once a batch: the same notice for every image is noise
                    if (said_.insert(n).second) err_.write(std::string(kProgram) + ": note: " + oneLine(n) + '\n');
        } else {
            ++skipped_;
            err_.write(std::string(kProgram) + ": error: skipped '" + oneLine(in) + "': " + oneLine(f.error) + '\n');
        }
        printLine(f);
        drawBar();
    }

    // The closing summary on stdout; the bar is gone by then.
    void finish(double wallS)
    {
        clearBar();
        const double rate = wallS > 0 ? double(written_) / wallS : 0.0;
        if (job_.json) {
            const Json s = {{"inputs", job_.inputs.size()}, {"written", written_}, {"skipped", skipped_},
                            {"wall_s", wallS}, {"images_per_s", rate}};
            std::cout << Json{{"summary", s}}.dump() << std::endl;
        } else {
            char line[160];
            std::snprintf(line, sizeof line, "batch    %zu inputs: %zu written, %zu skipped, %.3f s, %.3g images/s\n",
                          job_.inputs.size(), written_, skipped_, wallS, rate);
            std::cout << line << std::flush;
        }
    }

    std::size_t skipped() const { return skipped_; }

private:
    void printLine(const Filtered& f) const
    {
        const std::string& in = job_.inputs[f.index];
        const std::string& out = job_.outputs[f.index];
        if (job_.json) {
            Json j = {{"index", f.index}, {"input", in}, {"output", out}};
            if (f.error.empty()) j["report"] = f.report;
            else j["error"] = {{"stage", f.stage}, {"message", f.error}};
            std::cout << j.dump() << std::endl; // one line each, flushed: a reader can follow the batch
        } else if (f.error.empty()) {
            std::cout << oneLine(in) << " -> " << oneLine(out) << ": " << f.summary << std::endl;
        }
    }

    void drawBar()
    {
        if (!err_.terminal()) return;
        constexpr std::size_t kBarWidth = 24;
        const std::size_t total = job_.inputs.size(), finished = written_ + skipped_;
        const std::size_t filled = total ? kBarWidth * finished / total : kBarWidth;
        std::string line = "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "] " +
                           std::to_string(finished) + "/" + std::to_string(total);
        if (skipped_) line += ", " + std::to_string(skipped_) + " skipped";
        const double s = seconds();
        if (finished && s > 0) {
            char rate[48];
            std::snprintf(rate, sizeof rate, ", %.3g images/s", double(finished) / s);
            line += rate;
        }
        if (finished < total) line += "  " + oneLine(fs::path(job_.inputs[finished]).filename().string());
        line.resize(std::min(line.size(), err_.columns() - 1)); // a wrapped bar could not be redrawn in place
        err_.write("\r" + line + "\x1b[K");
        barShown_ = true;
    }
    void clearBar()
    {
        if (barShown_) err_.write("\r\x1b[K");
        barShown_ = false;
    }
    double seconds() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

    const BatchJob& job_;
    const ErrorStream& err_;
    std::size_t written_ = 0, skipped_ = 0;
    std::set<std::string> said_;
    bool barShown_ = false;
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// ---- the three steps ----

// How many inputs and how many results may be in memory at once: one being worked on and one
// waiting, for each side.
constexpr std::ptrdiff_t kInFlight = 2;

void decodeAll(const BatchJob& job, std::counting_semaphore<kInFlight>& inputSlots, BoundedQueue<Decoded>& decoded)
{
    for (std::size_t i = 0; i < job.inputs.size(); ++i) {
        inputSlots.acquire(); // released once the image is filtered
        Decoded d;
        d.index = i;
        try {
            d.source = Source::load(job.inputs[i]);
        } catch (const std::exception& e) {
            d.error = errorText(e);
        }
        decoded.push(std::move(d));
    }
    decoded.close();
}

std::string summaryLine(const Outcome& r)
{
    const RunReport& rep = r.runs.back();
    char time[32];
    std::snprintf(time, sizeof time, "%.4g ms", rep.totalMs);
    return std::to_string(r.input.width()) + "x" + std::to_string(r.input.height()) + ", " +
           std::to_string(r.input.channels()) + (r.input.channels() == 1 ? " channel, " : " channels, ") +
           methodName(rep.method) + " on " + deviceName(rep.device) + ", " + time;
}

// Filters one decoded input into `f.out`, exactly as a single run filters it (same parameters,
// same output depth, same report); throws what the single run would.
void filterOne(const BatchJob& job, Decoded& d, Filtered& f)
{
    const std::string& output = job.outputs[d.index];
    Outcome r = outcomeOf(job.setup);
    r.input = std::move(d.source);
    r.notices = r.input.notices;
    r.save.map = job.map;
    r.save.depth = outputDepth(job.depth, job.map, output, r.input.depth(), r.input.channels(), r.input.hasAlpha(),
                               r.notices);
    RunReport rep;
    r.input.runInto(r.params, *f.out, &rep);
    const double totalMs = rep.totalMs;
    r.runs.push_back(std::move(rep));
    r.runCount = 1;
    if (job.setup.compare) r.diff = compareImages(*f.out, r.input.run(*job.setup.compare, &r.compareReport));
    finishOutcome(r, {totalMs});

    f.save = r.save;
    if (job.json) f.report = jsonReport(job.inputs[d.index], output, r);
    else f.summary = summaryLine(r);
    f.notices = r.notices;
    f.notices.insert(f.notices.end(), r.runs.back().notices.begin(), r.runs.back().notices.end());
}

void filterAll(const BatchJob& job, std::counting_semaphore<kInFlight>& inputSlots, BoundedQueue<Decoded>& decoded,
               BoundedQueue<std::unique_ptr<Image>>& buffers, BoundedQueue<Filtered>& filtered)
{
    while (std::optional<Decoded> d = decoded.pop()) {
        Filtered f;
        f.index = d->index;
        if (!d->error.empty()) {
            f.error = std::move(d->error);
            f.stage = "read";
        } else {
            f.out = std::move(*buffers.pop()); // waits while both results are still being written
            try {
                filterOne(job, *d, f);
            } catch (const std::exception& e) {
                f.error = errorText(e);
                f.stage = "filter";
                buffers.push(std::move(f.out));
            }
        }
        d.reset(); // the decoded input's memory, before the next one may be decoded
        inputSlots.release();
        filtered.push(std::move(f));
    }
    filtered.close();
}

void writeAll(const BatchJob& job, BoundedQueue<Filtered>& filtered, BoundedQueue<std::unique_ptr<Image>>& buffers,
              Reporter& reporter)
{
    while (std::optional<Filtered> f = filtered.pop()) {
        if (f->error.empty()) {
            try {
                saveImage(*f->out, job.outputs[f->index], f->save); // atomically: a failed write leaves nothing
            } catch (const std::exception& e) {
                f->error = errorText(e);
                f->stage = "write";
            }
        }
        if (f->out) buffers.push(std::move(f->out));
        reporter.done(*f);
    }
}

// An extension as given to --format, with its dot.
std::string extensionOf(const std::string& format)
{
    if (format.empty()) return {};
    const std::string ext = format[0] == '.' ? format : "." + format;
    if (ext.size() < 2 || ext.find_first_of("/\\", 0) != std::string::npos || ext.find('.', 1) != std::string::npos)
        throw UsageError("bad --format '" + format + "': expected an extension such as png or .npy");
    return ext;
}

// The same file whatever the spelling ("a.png", "./a.png", "dir/../a.png").
fs::path identity(const std::string& path)
{
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(path, ec);
    return ec ? fs::path(path).lexically_normal() : p;
}

} // namespace

std::vector<std::string> readInputList(const std::string& list)
{
    std::ifstream file;
    if (list != "-") {
        std::error_code ec;
        if (fs::is_directory(list, ec)) throw Error("cannot read the input list '" + list + "': it is a folder");
        file.open(list);
        if (!file) throw Error("cannot read the input list '" + list + "': no such file or no permission");
    }
    std::istream& in = list == "-" ? std::cin : file;
    std::vector<std::string> inputs;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!line.empty()) inputs.push_back(std::move(line));
    }
    if (in.bad()) throw Error("cannot read the input list '" + list + "': read error");
    return inputs;
}

std::vector<std::string> batchOutputs(const std::vector<std::string>& inputs, const std::string& dir,
                                      const std::string& format)
{
    const std::string ext = extensionOf(format);
    std::error_code ec;
    if (!fs::exists(dir, ec)) throw Error("output folder '" + dir + "' does not exist (it is not created)");
    if (!fs::is_directory(dir, ec)) throw Error("output folder '" + dir + "' is not a folder");

    std::vector<std::string> outputs;
    std::map<fs::path, std::size_t> byName, byInput; // output name, input file -> its first input
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const std::string& in = inputs[i];
        fs::path name = fs::path(in).filename();
        if (name.empty() || name == "." || name == "..") throw UsageError("input '" + in + "' names no file");
        if (!ext.empty()) name.replace_extension(ext);
        if (const auto [at, fresh] = byInput.emplace(identity(in), i); !fresh)
            throw UsageError("input '" + in + "' is listed twice (as '" + inputs[at->second] + "' before)");
        const fs::path out = fs::path(dir) / name;
        if (const auto [at, fresh] = byName.emplace(name, i); !fresh)
            throw UsageError("inputs '" + inputs[at->second] + "' and '" + in + "' would both be written to '" +
                             out.string() + "'; rename one, or filter them in separate runs");
        outputs.push_back(out.string());
    }
    for (const std::string& out : outputs) {
        try {
            formatHoldsDepth(out, SampleDepth::U8);
        } catch (const Error& e) {
            throw Error(std::string(e.what()) + (ext.empty() ? "; --format gives the outputs another" : ""));
        }
        if (const auto at = byInput.find(identity(out)); at != byInput.end())
            throw Error("output '" + out + "' would overwrite the input '" + inputs[at->second] +
                        "'; choose another -O or --format");
    }
    return outputs;
}

int runBatch(const BatchJob& job)
{
    const auto start = std::chrono::steady_clock::now();
    const ErrorStream err; // before the decoding thread first redirects fd 2
    Reporter reporter(job, err);

    std::counting_semaphore<kInFlight> inputSlots(kInFlight);
    BoundedQueue<Decoded> decoded(kInFlight);
    BoundedQueue<Filtered> filtered(kInFlight);
    BoundedQueue<std::unique_ptr<Image>> buffers(kInFlight);
    for (int i = 0; i < kInFlight; ++i) buffers.push(std::make_unique<Image>());

    // Neither thread throws: each image's failure is caught and reported as that image's.
    std::thread decoder([&] { decodeAll(job, inputSlots, decoded); });
    std::thread writer([&] { writeAll(job, filtered, buffers, reporter); });
    filterAll(job, inputSlots, decoded, buffers, filtered);
    decoder.join();
    writer.join();

    reporter.finish(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return reporter.skipped() ? kExitSomeSkipped : 0;
}

} // namespace convlab::cli
