// SPDX-License-Identifier: GPL-3.0-or-later
// The text kernel parser (parseKernelText: what -k "1 2 1; ..." and .txt kernel files go
// through) on arbitrary bytes. A parsed kernel must be valid and survive its own text form
// unchanged, bit for bit.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "convlab/error.h"
#include "convlab/kernel.h"
#include "fuzz_support.h"

using namespace convlab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Kernel k;
    try {
        k = parseKernelText(text);
    } catch (const Error&) {
        return 0; // refused with a message: the expected outcome for most inputs
    }
    fuzz::require(k.width >= 1 && k.height >= 1 && k.width <= kMaxKernelSide && k.height <= kMaxKernelSide,
                  "parsed kernel has size " + std::to_string(k.width) + "x" + std::to_string(k.height));
    fuzz::require(k.values.size() == std::size_t(k.width) * std::size_t(k.height), "values do not fill the kernel");
    k.validate(); // throws (and so crashes the target) if the parser let a bad kernel through

    const std::string again = k.toText();
    Kernel back;
    try {
        back = parseKernelText(again);
    } catch (const Error& e) {
        fuzz::fail("the text form '" + again.substr(0, 200) + "' does not parse back: " + e.what());
    }
    fuzz::require(back.width == k.width && back.height == k.height, "the text form changes the size");
    fuzz::require(std::memcmp(back.values.data(), k.values.data(), k.values.size() * sizeof(float)) == 0,
                  "the text form changes a value");
    return 0;
}
