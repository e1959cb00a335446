// SPDX-License-Identifier: GPL-3.0-or-later
// Padded rows on demand. Instead of padding the whole plane, a band of output rows keeps a
// ring of the kernel's height of padded input rows; each row is padded once (the border rule
// applied to its row and its left/right margins) and reused by every output row that needs it.
#pragma once
#include <algorithm>
#include <cstring>
#include <vector>

#include "convlab/convolve.h"

namespace convlab::detail {

class PaddedRows {
public:
    // Plane w x h padded by left/right columns; rows addressed in padded coordinates
    // r = input row + top, for r in [0, h + top + bottom).
    PaddedRows(int w, int h, const Border& border, int top, int left, int right, int ringRows)
        : w_(w), h_(h), border_(border), top_(top), left_(left), pw_(w + left + right),
          ring_(static_cast<std::size_t>(pw_) * ringRows), tags_(ringRows, -1), cols_(left + right)
    {
        for (int i = 0; i < left; ++i) cols_[i] = borderIndex(i - left, w, border.mode);
        for (int i = 0; i < right; ++i) cols_[left + i] = borderIndex(w + i, w, border.mode);
    }

    int paddedWidth() const { return pw_; }
    void reset(const float* plane)
    {
        plane_ = plane;
        packed_ = nullptr;
        std::fill(tags_.begin(), tags_.end(), -1);
    }
    // Plane c of whichever source is given: float planes, or 8/16-bit samples whose rows are
    // converted to float as they are padded, so the conversion is part of the first pass and no
    // float copy of the image is made.
    void reset(const Image* image, const PackedImage* packed, int c)
    {
        plane_ = image ? image->plane(c) : nullptr;
        packed_ = image ? nullptr : packed;
        channel_ = c;
        std::fill(tags_.begin(), tags_.end(), -1);
    }

    // The padded row r (valid until ring's size further rows have been asked for).
    const float* row(int r)
    {
        const int slot = r % static_cast<int>(tags_.size());
        float* dst = ring_.data() + static_cast<std::size_t>(slot) * pw_;
        if (tags_[slot] == r) return dst;
        tags_[slot] = r;
        const int sy = borderIndex(r - top_, h_, border_.mode);
        if (sy < 0) {
            std::fill(dst, dst + pw_, border_.value);
            return dst;
        }
        float* s = dst + left_; // the row itself; the margins are copied from it
        if (packed_)
            unpackRow(*packed_, channel_, sy, s);
        else
            std::memcpy(s, plane_ + static_cast<std::size_t>(sy) * w_, sizeof(float) * w_);
        const int right = pw_ - w_ - left_;
        for (int i = 0; i < left_; ++i) dst[i] = cols_[i] < 0 ? border_.value : s[cols_[i]];
        for (int i = 0; i < right; ++i)
            dst[left_ + w_ + i] = cols_[left_ + i] < 0 ? border_.value : s[cols_[left_ + i]];
        return dst;
    }

private:
    int w_, h_;
    Border border_;
    int top_, left_, pw_;
    const float* plane_ = nullptr;
    const PackedImage* packed_ = nullptr;
    int channel_ = 0;
    std::vector<float> ring_;
    std::vector<int> tags_;
    std::vector<int> cols_;
};

} // namespace convlab::detail
