// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <stdexcept>
#include <string>

namespace convlab {

// Every user-facing failure in the engine is an Error with a one-line message that names the
// problem (file, value, limit). Callers show what() and keep their previous state.
class Error : public std::runtime_error {
public:
    explicit Error(const std::string& message) : std::runtime_error(message) {}
};

} // namespace convlab
