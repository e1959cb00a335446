// SPDX-License-Identifier: GPL-3.0-or-later
#include <algorithm>
#include <cstring>
#include <vector>

#include "methods.h"

namespace convlab::detail {

void padPlane(const float* src, int w, int h, const Border& border, int top, int bottom, int left,
              int right, float* dst)
{
    const int pw = w + left + right;
    const int ph = h + top + bottom;
    // Column map of one padded row: source column or -1 for the constant.
    std::vector<int> cols(static_cast<std::size_t>(left + right));
    for (int i = 0; i < left; ++i) cols[i] = borderIndex(i - left, w, border.mode);
    for (int i = 0; i < right; ++i) cols[left + i] = borderIndex(w + i, w, border.mode);
    for (int y = 0; y < ph; ++y) {
        float* row = dst + static_cast<std::size_t>(y) * pw;
        const int sy = borderIndex(y - top, h, border.mode);
        if (sy < 0) {
            std::fill(row, row + pw, border.value);
            continue;
        }
        const float* s = src + static_cast<std::size_t>(sy) * w;
        std::memcpy(row + left, s, sizeof(float) * w);
        for (int i = 0; i < left; ++i) row[i] = cols[i] < 0 ? border.value : s[cols[i]];
        for (int i = 0; i < right; ++i)
            row[left + w + i] = cols[left + i] < 0 ? border.value : s[cols[left + i]];
    }
}

} // namespace convlab::detail
