// SPDX-License-Identifier: GPL-3.0-or-later
// A small cache of what is derived from a kernel (its SVD factors, its FFT spectra), keyed by
// the kernel's exact contents and whatever else the value depends on (a transform size, say),
// keeping the most recently used entries. Safe to call from several threads; a value is computed
// outside the lock, so two threads may compute the same one once each.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <list>
#include <mutex>
#include <string>
#include <utility>

#include "convlab/kernel.h"

namespace convlab::detail {

template <class Value, std::size_t Entries> class KernelCache {
public:
    // The value for `k` and `extra`, made by `make()` when not held.
    template <class Make> Value get(const Kernel& k, std::initializer_list<int> extra, Make&& make)
    {
        std::string key(reinterpret_cast<const char*>(k.values.data()), k.values.size() * sizeof(float));
        for (int v : {k.width, k.height}) key.append(reinterpret_cast<const char*>(&v), sizeof v);
        for (int v : extra) key.append(reinterpret_cast<const char*>(&v), sizeof v);
        {
            std::lock_guard lock(mutex_);
            for (auto it = entries_.begin(); it != entries_.end(); ++it)
                if (it->first == key) {
                    entries_.splice(entries_.begin(), entries_, it);
                    return it->second;
                }
        }
        Value value = make();
        std::lock_guard lock(mutex_);
        entries_.emplace_front(std::move(key), value);
        if (entries_.size() > Entries) entries_.pop_back();
        return value;
    }

private:
    std::mutex mutex_;
    std::list<std::pair<std::string, Value>> entries_;
};

} // namespace convlab::detail
