// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/plan.h"

#include <algorithm>
#include <cmath>
#include <charconv>
#include <string>

#include "convlab/error.h"

namespace convlab::detail {
namespace {

// Appends v as printf's %.3g writes it. (A stream costs more than a small image's whole run:
// 1-2 us a reason, for its locale and buffers.)
void appendShort(std::string& text, double v)
{
    char digits[32];
    const auto end = std::to_chars(digits, digits + sizeof digits, v, std::chars_format::general, 3).ptr;
    text.append(digits, end);
}

// Picks the cheapest method by the backend's measured costs and says why, with the numbers.
Method chooseMethod(const Kernel& k, const SeparableFactors& f, const std::vector<MethodEstimate>& est,
                    const std::string& measuredOn, std::string& reason)
{
    if (k.width * k.height == 1) {
        reason = "1x1 kernel: a single multiply per pixel";
        return Method::Direct;
    }
    if (est.empty()) throw Error("the planner has no estimate for any method");
    const auto best = std::min_element(est.begin(), est.end(),
                                       [](const MethodEstimate& a, const MethodEstimate& b) { return a.ms < b.ms; });
    std::string why;
    why.reserve(256); // (one allocation: growing it took five)
    why += methodName(best->method);
    if (engineOf(best->method).needsFactors) why += " (rank " + std::to_string(f.rank) + ")";
    why += " estimated ";
    appendShort(why, best->ms);
    why += " ms, the cheapest of";
    for (const MethodEstimate& e : est) {
        why += ' ';
        why += methodName(e.method);
        if (engineOf(e.method).needsFactors) why += "/rank " + std::to_string(e.rank);
        why += ' ';
        appendShort(why, e.ms);
        why += &e == &est.back() ? " ms" : " ms,";
    }
    why += " (costs measured on " + measuredOn + ")";
    reason = std::move(why);
    return best->method;
}

} // namespace

int filteredChannels(const ImageShape& shape, const ConvolveParams& p)
{
    return (shape.hasAlpha && !p.filterAlpha && shape.channels > 1) ? shape.channels - 1 : shape.channels;
}

void validateParams(const ConvolveParams& p)
{
    p.kernel.validate();
    if (!std::isfinite(p.scale) || !std::isfinite(p.offset) || !std::isfinite(p.border.value))
        throw Error("scale, offset and border constant must be finite numbers");
}

Plan makePlan(const ConvolveParams& p, const ImageShape& shape, const MethodCosts& costs, RunReport& rep,
              StageClock* clock)
{
    validateParams(p);
    Plan plan;
    plan.kernel = correlationKernel(p.kernel, p.semantics);
    plan.channels = filteredChannels(shape, p);
    plan.scale = effectiveScale(p, rep.notices);
    plan.offset = p.offset;
    plan.border = p.border;
    rep.effectiveScale = plan.scale;

    // The SVD is cheap next to any image; it drives both auto and the separable method.
    if (p.method == Method::Auto || engineOf(p.method).needsFactors) {
        plan.factors = separableFactors(plan.kernel);
        rep.rank = plan.factors.rank;
        rep.singularValues = plan.factors.singularValues;
        if (clock) clock->mark("analyze");
    }
    if (p.method == Method::Auto) {
        rep.estimates = costs.estimate(plan.kernel, plan.factors.rank, plan.channels);
        plan.method = chooseMethod(plan.kernel, plan.factors, rep.estimates, costs.measuredOn, rep.reason);
        if (clock) clock->mark("plan");
    } else {
        plan.method = p.method;
        const RunShape run{shape.width, shape.height, plan.channels, &plan.kernel, rep.rank, p.threads};
        if (std::string why; !methodApplies(engineOf(plan.method), run, &why))
            throw Error(methodName(plan.method) + " cannot filter this image: " + why);
        rep.reason = "requested";
    }
    rep.method = plan.method;
    return plan;
}

} // namespace convlab::detail
