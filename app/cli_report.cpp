// SPDX-License-Identifier: GPL-3.0-or-later
// What convlab-cli says of a run: the outcome's figures (median, throughput, the kernel's
// rank), the JSON object of --json (one per image in batch mode) and the text summary.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "batch.h"
#include "cli_internal.h"
#include "convlab/analysis.h"
#include "convlab/convolve.h"
#include "convlab/modes.h"

namespace convlab {

using namespace cli;

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The rank of the kernel for the report: the engine's when it computed one, else our own SVD
// for kernels small enough that it costs nothing worth mentioning.
std::optional<SvdInfo> kernelRank(const Kernel& k, const RunReport& rep)
{
    if (rep.rank >= 0) return SvdInfo{rep.singularValues, rep.rank};
    if (k.width * k.height <= 64 * 64) return analyzeRank(k);
    return std::nullopt;
}

} // namespace

std::string cli::depthLabel(SampleDepth d)
{
    switch (d) {
    case SampleDepth::U8: return "8";
    case SampleDepth::U16: return "16";
    case SampleDepth::F32: return "32f";
    }
    return "32f";
}

Outcome cli::outcomeOf(const RunSetup& setup)
{
    Outcome r;
    r.params = setup.params;
    r.requestedDevice = setup.requestedDevice;
    r.cuda = setup.cuda;
    r.cudaWhy = setup.cudaWhy;
    r.quiet = setup.quiet;
    return r;
}

void cli::finishOutcome(Outcome& r, const std::vector<double>& totalsMs)
{
    r.medianMs = median(totalsMs);
    const double megapixels = double(r.input.width()) * r.input.height() / 1e6;
    r.mpxPerS = r.medianMs > 0 ? megapixels / (r.medianMs / 1e3) : INFINITY;
    r.rank = kernelRank(r.params.kernel, r.runs.back());
}

Json cli::jsonReport(const std::string& input, const std::string& output, const Outcome& r)
{
    const ConvolveParams& p = r.params;
    const RunReport& rep = r.runs.back();
    Json j;
    j["input"] = {{"path", input}, {"width", r.input.width()}, {"height", r.input.height()},
                  {"channels", r.input.channels()}, {"depth", depthLabel(r.input.depth())}};
    j["output"] = {{"path", output}, {"depth", depthLabel(*r.save.depth)}, {"map", outputMapName(r.save.map)}};
    j["kernel"] = {{"name", p.kernel.name}, {"width", p.kernel.width}, {"height", p.kernel.height},
                   {"anchor", Json::array({p.kernel.ax(), p.kernel.ay()})}, {"sum", p.kernel.sum()},
                   {"rank", r.rank ? Json(r.rank->rank) : Json()},
                   {"singular_values", r.rank ? r.rank->singularValues : std::vector<double>{}}};
    j["border"] = {{"mode", borderName(p.border.mode)}, {"value", p.border.value}};
    j["semantics"] = semanticsName(p.semantics);
    j["method"] = {{"requested", methodName(p.method)}, {"chosen", methodName(rep.method)}, {"reason", rep.reason}};
    Json estimates = Json::array();
    for (const MethodEstimate& e : rep.estimates) {
        Json one = {{"method", methodName(e.method)}, {"estimated_ms", e.ms}};
        if (e.method == Method::Separable) one["rank"] = e.rank;
        estimates.push_back(one);
    }
    j["method"]["estimates"] = estimates;
    j["device"] = {{"requested", deviceName(r.requestedDevice)}, {"chosen", deviceName(rep.device)},
                   {"cuda_available", r.cuda}, {"cuda_reason", r.cuda ? Json() : Json(r.cudaWhy)},
                   {"reason", rep.deviceReason.empty() ? Json() : Json(rep.deviceReason)}};
    j["threads"] = rep.threads;
    j["scale"] = rep.effectiveScale;
    j["offset"] = p.offset;
    Json notices = Json::array();
    for (const auto* list : {&r.quiet, &r.notices, &rep.notices})
        for (const std::string& n : *list) notices.push_back(n);
    j["notices"] = std::move(notices);
    Json runs = Json::array();
    for (const RunReport& run : r.runs) {
        Json stages = Json::array();
        for (const StageTiming& s : run.stages) {
            Json stage = {{"name", s.name}, {"ms", s.ms}};
            if (s.once) stage["once"] = true; // a one-time cost: planning, calibration
            stages.push_back(std::move(stage));
        }
        runs.push_back({{"stages", std::move(stages)}, {"total_ms", run.totalMs}, {"compute_ms", run.computeMs}});
    }
    j["runs"] = std::move(runs);
    j["run_count"] = r.runCount; // "runs" holds the last kKeptRuns of them
    j["median_total_ms"] = r.medianMs;
    j["mpx_per_s"] = r.mpxPerS; // null when too fast to time
    if (r.diff)
        j["compare"] = {{"method", methodName(r.compareReport.method)}, {"device", deviceName(r.compareReport.device)},
                        {"max_abs", r.diff->maxAbs}, {"mean_abs", r.diff->meanAbs}, {"rmse", r.diff->rmse},
                        {"psnr", r.diff->psnr}, // null when identical (+inf)
                        {"max_at", Json::array({r.diff->maxX, r.diff->maxY, r.diff->maxC})},
                        // the statistics cover the values finite in both; NaN and infinities are counted
                        {"finite_both", r.diff->finiteBoth}, {"non_finite_a", r.diff->nonFiniteA},
                        {"non_finite_b", r.diff->nonFiniteB}, {"non_finite_mismatch", r.diff->nonFiniteMismatch}};
    return j;
}

void cli::printSummary(const Options& o, const Outcome& r)
{
    const ConvolveParams& p = r.params;
    const RunReport& rep = r.runs.back();
    const Source& in = r.input;
    // Notices (the output depth chosen, a zero-sum kernel left unnormalized, ...) are warnings:
    // stderr.
    for (const auto* list : {&r.notices, &rep.notices})
        for (const std::string& n : *list) note(n);
    std::string alpha;
    if (in.hasAlpha()) alpha = p.filterAlpha ? " (alpha filtered)" : " (alpha passed through)";
    std::cout << "input    " << o.input << ": " << in.width() << 'x' << in.height() << ", " << in.channels()
              << (in.channels() == 1 ? " channel" : " channels") << alpha << ", " << depthLabel(in.depth()) << '\n';
    std::cout << "kernel   " << p.kernel.name << ' ' << p.kernel.width << 'x' << p.kernel.height << ", anchor ("
              << p.kernel.ax() << ',' << p.kernel.ay() << "), sum " << num(p.kernel.sum(), 6);
    if (r.rank) std::cout << ", rank " << r.rank->rank;
    std::cout << '\n';
    std::cout << "border   " << borderName(p.border.mode)
              << (p.border.mode == BorderMode::Constant ? "(" + num(p.border.value, 6) + ")" : "") << ", "
              << semanticsName(p.semantics) << ", scale " << num(rep.effectiveScale, 6) << ", offset "
              << num(p.offset, 6) << '\n';
    std::cout << "method   " << methodName(rep.method) << " on " << deviceName(rep.device) << ", " << rep.threads
              << (rep.threads == 1 ? " thread" : " threads") << (rep.reason.empty() ? "" : " (" + rep.reason + ")")
              << '\n';
    std::cout << "time     " << num(r.medianMs) << " ms"
              << (r.runCount > 1 ? " median of " + std::to_string(r.runCount) + " runs" : "") << ", "
              << num(r.mpxPerS) << " Mpx/s\n";
    if (r.diff)
        std::cout << "compare  " << methodName(r.compareReport.method) << " on " << deviceName(r.compareReport.device)
                  << ": max |diff| " << num(r.diff->maxAbs) << " at (" << r.diff->maxX << ',' << r.diff->maxY << ','
                  << r.diff->maxC << "), mean " << num(r.diff->meanAbs) << ", rmse " << num(r.diff->rmse)
                  << ", PSNR " << num(r.diff->psnr) << " dB"
                  << (r.diff->nonFiniteA || r.diff->nonFiniteB
                          ? "; non-finite values: " + std::to_string(r.diff->nonFiniteA) + " in the result, " +
                                std::to_string(r.diff->nonFiniteB) + " in " + methodName(r.compareReport.method) +
                                "'s, " + std::to_string(r.diff->nonFiniteMismatch) + " not matched"
                          : std::string())
                  << '\n';
    std::cout << "output   " << o.output << " (" << depthLabel(*r.save.depth)
              << (*r.save.depth == SampleDepth::F32 ? "" : ", map " + outputMapName(r.save.map)) << ")\n";
}

} // namespace convlab
