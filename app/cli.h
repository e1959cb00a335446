// SPDX-License-Identifier: GPL-3.0-or-later
// convlab-cli: the engine headless, for scripting, batch work and benchmarks.
#pragma once

namespace convlab {

// Runs the command line tool; returns the process exit status (0 success, 1 error, 2 usage, 3 a
// batch that skipped some of its inputs).
int runCli(int argc, char** argv);

} // namespace convlab
