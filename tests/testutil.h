// SPDX-License-Identifier: GPL-3.0-or-later
// Shared helpers for the Qt Test suites.
#pragma once
#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/image.h"
#include "convlab/kernel.h"
#include "convlab/modes.h"

namespace convlab::test {

// Deterministic random image, values ~ N(100, 20^2) (or uniform 0..255 when `integerValued`,
// rounded to whole numbers so 8-bit round trips are exact).
Image randomImage(int w, int h, int c, std::uint32_t seed, bool integerValued = false);

enum class KernelKind { Dense, Rank1, Rank2 };
Kernel randomKernel(int w, int h, KernelKind kind, std::uint32_t seed);

// docs/semantics.md, Tolerances: |a-b| <= tol * sum|K| * max|in|. Returns the worst ratio
// err / (sum|K| * max|in|) over the whole image (every pixel, every channel).
double relativeError(const Image& got, const Image& want, const Kernel& k, const Image& in);
// The same with the run's parameters: effective scale, offset and border constant.
double relativeError(const Image& got, const Image& want, const Image& in, const ConvolveParams& p,
                     double effectiveScale);

// ---- the tables of convlab/modes.h, as the suites iterate them ----

// The methods of the table that `keep` accepts, in display order.
template <class Keep> std::vector<Method> methodsWhere(Keep keep)
{
    std::vector<Method> out;
    for (const MethodInfo& m : methods())
        if (keep(m)) out.push_back(m.method);
    return out;
}
// Every method that runs as asked: all but auto, which runs one of the others.
std::vector<Method> requestableMethods();
// The methods auto weighs (and the crossover sweep times).
std::vector<Method> autoCandidates();
// Every method but the oracle: what is held to a tolerance against the reference.
std::vector<Method> methodsUnderTest();
// The relative tolerance of a method's results against the reference (docs/semantics.md,
// Tolerances), from its row; for auto, that of the loosest method it may pick.
double toleranceFor(Method m);

// Every border mode as parseBorder reads it, in table order: a mode that takes a value is
// written NAME:VALUE, and also plain NAME (its default value) when `alsoPlain`.
std::vector<std::string> borderSpellings(std::string_view value, bool alsoPlain = false);

// What the table's n = 4 example ("cbaabcddcb", p = -3..6) says the mode reads at position p
// of a row of n = 4 samples: the sample index 0..3, or -1 for the constant ('#').
int exampleIndex(const BorderModeInfo& mode, int p);
// Positions of the example lie in -3..6: 3 on either side of the 4 samples.
inline constexpr int kExampleReach = 3;

// Path of the built CLI and the source tree, from the build system.
QString cliPath();
QString sourceDir();

// One run of the built CLI to its end (at most five minutes).
struct CliRun {
    int exitCode = -1; // -1: did not start, crashed or hung
    QByteArray out;
    QByteArray err;
};
CliRun runCli(const QStringList& args);
// The same with these variables added to (or, for an empty value, set empty in) the environment.
CliRun runCli(const QStringList& args, const QList<QPair<QString, QString>>& environment);

} // namespace convlab::test
