// SPDX-License-Identifier: GPL-3.0-or-later
#include "testutil.h"

#include <QProcess>
#include <QProcessEnvironment>

#include <algorithm>
#include <cmath>
#include <random>

#include "convlab/error.h"

namespace convlab::test {

Image randomImage(int w, int h, int c, std::uint32_t seed, bool integerValued)
{
    Image img(w, h, c);
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(100.0f, 20.0f);
    std::uniform_int_distribution<int> uni(0, 255);
    for (float& v : img.data) v = integerValued ? float(uni(rng)) : normal(rng);
    return img;
}

Kernel randomKernel(int w, int h, KernelKind kind, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(w) * h);
    switch (kind) {
    case KernelKind::Dense:
        for (float& x : v) x = normal(rng);
        break;
    case KernelKind::Rank1: {
        std::vector<float> col(h), row(w);
        for (float& x : col) x = normal(rng);
        for (float& x : row) x = normal(rng);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) v[std::size_t(y) * w + x] = col[y] * row[x];
        break;
    }
    case KernelKind::Rank2:
        std::fill(v.begin(), v.end(), 1.0f);
        v[std::size_t(h / 2) * w + w / 2] -= float(w * h);
        break;
    }
    return Kernel(w, h, std::move(v));
}

double relativeError(const Image& got, const Image& want, const Kernel& k, const Image& in)
{
    ConvolveParams p;
    p.kernel = k;
    return relativeError(got, want, in, p, 1.0);
}

double relativeError(const Image& got, const Image& want, const Image& in, const ConvolveParams& p,
                     double effectiveScale)
{
    if (!got.sameShape(want)) return INFINITY;
    double maxIn = p.border.mode == BorderMode::Constant ? std::fabs(double(p.border.value)) : 0.0;
    for (float v : in.data) maxIn = std::max(maxIn, double(std::fabs(v)));
    const double scale =
        std::max(std::fabs(effectiveScale) * p.kernel.absSum() * std::max(maxIn, 0.5) + std::fabs(p.offset), 1e-3);
    double worst = 0.0;
    for (std::size_t i = 0; i < got.data.size(); ++i) {
        const double e = std::fabs(double(got.data[i]) - double(want.data[i]));
        if (!(e <= worst)) worst = e; // NaN propagates as "worst"
    }
    return worst / scale;
}

std::vector<Method> requestableMethods()
{
    return methodsWhere([](const MethodInfo& m) { return m.accuracy != Accuracy::OfItsPick; });
}

std::vector<Method> autoCandidates()
{
    return methodsWhere([](const MethodInfo& m) { return m.autoCandidate; });
}

std::vector<Method> methodsUnderTest()
{
    return methodsWhere([](const MethodInfo& m) { return m.accuracy != Accuracy::Oracle; });
}

double toleranceFor(Method m) { return toleranceOf(methodInfo(m).accuracy); }

std::vector<std::string> borderSpellings(std::string_view value, bool alsoPlain)
{
    std::vector<std::string> out;
    for (const BorderModeInfo& mode : borderModes()) {
        if (!mode.takesValue || alsoPlain) out.emplace_back(mode.name);
        if (mode.takesValue) out.push_back(std::string(mode.name) + ":" + std::string(value));
    }
    return out;
}

int exampleIndex(const BorderModeInfo& mode, int p)
{
    const std::string_view example = mode.example;
    const auto at = static_cast<std::size_t>(p + kExampleReach);
    if (p < -kExampleReach || at >= example.size())
        throw Error("position " + std::to_string(p) + " lies outside the example of '" + mode.name + "'");
    return example[at] == '#' ? -1 : example[at] - 'a';
}

QString cliPath() { return QStringLiteral(CONVLAB_CLI_PATH); }
QString sourceDir() { return QStringLiteral(CONVLAB_SOURCE_DIR); }

CliRun runCli(const QStringList& args) { return runCli(args, {}); }

CliRun runCli(const QStringList& args, const QList<QPair<QString, QString>>& environment)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const auto& [name, value] : environment) env.insert(name, value);
    p.setProcessEnvironment(env);
    p.start(cliPath(), args);
    CliRun r;
    if (!p.waitForFinished(300000)) {
        p.kill();
        p.waitForFinished();
        return r;
    }
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    if (p.exitStatus() == QProcess::NormalExit) r.exitCode = p.exitCode();
    return r;
}

} // namespace convlab::test
