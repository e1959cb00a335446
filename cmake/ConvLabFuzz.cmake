# SPDX-License-Identifier: GPL-3.0-or-later
# CONVLAB_WITH_FUZZERS: the libFuzzer targets of tests/fuzz, for a clang build of their own
# (scripts/fuzz.sh configures one). The core is built with libFuzzer's coverage
# instrumentation, AddressSanitizer and UndefinedBehaviorSanitizer (every report fatal), so
# the fuzzer is guided through the engine's code and stops at its first memory or UB error.
option(CONVLAB_WITH_FUZZERS "Build the libFuzzer targets in tests/fuzz (clang only; see scripts/fuzz.sh)" OFF)
if(NOT CONVLAB_WITH_FUZZERS)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CONVLAB_WITH_FUZZERS needs clang (libFuzzer), not ${CMAKE_CXX_COMPILER_ID}: "
                      "configure with -DCMAKE_CXX_COMPILER=clang++-14, or use scripts/fuzz.sh")
endif()

set(convlab_fuzz_instrument -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                            -fno-omit-frame-pointer)
target_compile_options(convlab_core PRIVATE ${convlab_fuzz_instrument})
# Whatever links the instrumented core (the CLI too) needs the sanitizers' runtimes.
target_link_options(convlab_core INTERFACE -fsanitize=address,undefined)

enable_testing()
add_subdirectory(${PROJECT_SOURCE_DIR}/tests/fuzz ${PROJECT_BINARY_DIR}/tests/fuzz)
