// SPDX-License-Identifier: GPL-3.0-or-later
#include "report.h"

#include <nanobind/stl/string.h>

#include "convlab/modes.h"

namespace nb = nanobind;

namespace convlab::python {

nb::dict reportDict(const RunReport& r, double copyInMs, double copyOutMs)
{
    nb::list estimates;
    for (const convlab::MethodEstimate& e : r.estimates)
    {
        nb::dict d;
        d["method"] = convlab::methodName(e.method);
        d["ms"] = e.ms;
        d["rank"] = e.rank;
        estimates.append(d);
    }
    nb::list stages;
    for (const convlab::StageTiming& st : r.stages)
    {
        nb::dict d;
        d["name"] = st.name;
        d["ms"] = st.ms;
        d["once"] = st.once;
        stages.append(d);
    }
    nb::list singular;
    for (double v : r.singularValues) singular.append(v);
    nb::list notices;
    for (const std::string& n : r.notices) notices.append(n);
    nb::dict d;
    d["method"] = convlab::methodName(r.method);
    d["device"] = convlab::deviceName(r.device);
    d["reason"] = r.reason;
    d["estimates"] = estimates;
    d["rank"] = r.rank;
    d["singular_values"] = singular;
    d["effective_scale"] = r.effectiveScale;
    d["notices"] = notices;
    d["stages"] = stages;
    d["total_ms"] = r.totalMs;
    d["per_run_ms"] = convlab::perRunMs(r);
    d["compute_ms"] = r.computeMs;
    d["threads"] = r.threads;
    d["copy_in_ms"] = copyInMs;
    d["copy_out_ms"] = copyOutMs;
    return d;
}

} // namespace convlab::python
