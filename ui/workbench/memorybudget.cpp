// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/memorybudget.h"

#include <QFile>
#include <QRegularExpression>

namespace memorybudget {

namespace {

// The original, the held result, two recycled result buffers, a comparison's result and its
// difference: six image-sized float buffers; the view's textures and reduced copies, the
// histogram and the method's scratch (an FFT's padded planes) come on top, about one more.
constexpr int kImageBuffers = 7;

QString gib(std::uint64_t bytes) { return QString::number(double(bytes) / double(1ull << 30), 'f', 1) + " GiB"; }

} // namespace

std::uint64_t workingSetBytes(int width, int height, int channels)
{
    return std::uint64_t(kImageBuffers) * sizeof(float) * std::uint64_t(width) * std::uint64_t(height) *
           std::uint64_t(channels);
}

std::optional<std::uint64_t> availableBytes()
{
    QFile f(QStringLiteral("/proc/meminfo"));
    if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
    static const QRegularExpression line(QStringLiteral("^MemAvailable:\\s+(\\d+)\\s+kB"),
                                         QRegularExpression::MultilineOption);
    const QRegularExpressionMatch m = line.match(QString::fromLatin1(f.readAll()));
    if (!m.hasMatch()) return std::nullopt;
    return m.captured(1).toULongLong() * 1024ull;
}

QString refusal(int width, int height, int channels, std::optional<std::uint64_t> available, std::uint64_t alreadyHeld)
{
    const std::uint64_t needed = workingSetBytes(width, height, channels);
    if (!available || needed <= *available + alreadyHeld) return {};
    return QObject::tr("a %1×%2 image of %3 channel(s) needs about %4 in the workbench (the original, the "
                       "results, a comparison and the view's copies) and %5 are available: not opened, the "
                       "current image stays")
        .arg(width)
        .arg(height)
        .arg(channels)
        .arg(gib(needed))
        .arg(gib(*available + alreadyHeld));
}

} // namespace memorybudget
