// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-make-test-chart OUT [WIDTH HEIGHT]: writes the synthetic test chart (8-bit RGB) to OUT,
// in the format its extension names. The default size is 1024x768.
#include <cstdio>
#include <exception>
#include <string>

#include "convlab/error.h"
#include "convlab/io.h"
#include "convlab/testchart.h"

namespace {

int parseSide(const char* text, const char* what)
{
    std::size_t used = 0;
    int v = 0;
    try {
        v = std::stoi(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || text[used] != '\0' || v < 1 || v > convlab::kMaxImageSide)
        throw convlab::Error(std::string(what) + " '" + text + "' is not a whole number in 1.." +
                             std::to_string(convlab::kMaxImageSide));
    return v;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc != 2 && argc != 4) {
        std::fprintf(stderr, "usage: %s OUT [WIDTH HEIGHT]   (default 1024 768)\n", argv[0]);
        return 2;
    }
    try {
        const int width = argc == 4 ? parseSide(argv[2], "width") : 1024;
        const int height = argc == 4 ? parseSide(argv[3], "height") : 768;
        convlab::saveImage(convlab::makeTestChart(width, height), argv[1]);
        std::printf("%s: %dx%d test chart\n", argv[1], width, height);
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "convlab-make-test-chart: %s\n", e.what());
        return 1;
    }
}
