// SPDX-License-Identifier: GPL-3.0-or-later
// The JSON kernel parser (parseKernelJson: .json kernel files and inline {...} specs) on
// arbitrary bytes. A parsed kernel must be valid, and its JSON form must parse back to the
// same kernel and settings.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "convlab/error.h"
#include "convlab/kernel.h"
#include "fuzz_support.h"

using namespace convlab;

namespace {

void requireSameSpec(const KernelSpec& a, const KernelSpec& b)
{
    const Kernel& ka = a.kernel;
    const Kernel& kb = b.kernel;
    fuzz::require(ka.width == kb.width && ka.height == kb.height, "the JSON form changes the size");
    fuzz::require(std::memcmp(ka.values.data(), kb.values.data(), ka.values.size() * sizeof(float)) == 0,
                  "the JSON form changes a value");
    fuzz::require(ka.ax() == kb.ax() && ka.ay() == kb.ay(), "the JSON form changes the anchor");
    fuzz::require(ka.name == kb.name, "the JSON form changes the name");
    fuzz::require(a.scale == b.scale && a.offset == b.offset, "the JSON form changes scale or offset");
    fuzz::require(a.normalize == b.normalize && a.semantics == b.semantics,
                  "the JSON form changes normalize or semantics");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    KernelSpec spec;
    try {
        spec = parseKernelJson(text);
    } catch (const Error&) {
        return 0;
    }
    const Kernel& k = spec.kernel;
    fuzz::require(k.values.size() == std::size_t(k.width) * std::size_t(k.height), "values do not fill the kernel");
    k.validate();

    std::string again;
    try {
        again = kernelToJson(spec);
    } catch (const Error& e) {
        fuzz::fail(std::string("a parsed kernel has no JSON form: ") + e.what());
    }
    KernelSpec back;
    try {
        back = parseKernelJson(again);
    } catch (const Error& e) {
        fuzz::fail("the JSON form does not parse back: " + std::string(e.what()) + "\n" + again.substr(0, 400));
    }
    requireSameSpec(spec, back);
    return 0;
}
