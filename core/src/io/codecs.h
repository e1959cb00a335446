// SPDX-License-Identifier: GPL-3.0-or-later
// The image-codec module (codecs_abi.h), opened once, on first use, by whichever thread needs it
// first. Where it is looked for, in order:
//   1. $CONVLAB_CODECS, when set: that file only;
//   2. beside the running program, as installed (bin/../lib/convlab/libconvlab-codecs.so);
//   3. where the build put it.
#pragma once
#include <string>

#include "io/codecs_abi.h"

namespace convlab::detail {

// The module's functions. Throws Error("<context>: image formats are unavailable: ...", with
// each place tried and why it failed) when it cannot be opened; every later call says the same.
const convlab_codecs& imageCodecs(const std::string& context);

// Why the module does not open ("cannot open the codec module (...)"), or "" when it does;
// opens it when that has not been tried yet.
std::string imageCodecsProblem();

} // namespace convlab::detail
