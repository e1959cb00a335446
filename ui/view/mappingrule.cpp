// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/mappingrule.h"

#include <QCoreApplication>
#include <cmath>

#include "convlab/kernel.h"

namespace display {
namespace {

// A sum this small against the weights' magnitudes is zero written in floats (0.1 + 0.2 - 0.3).
constexpr double kZeroSumTolerance = 1e-6;

// Whole numbers from 100 on ("±1432", not "±1.43e+03"), three significant digits below.
QString number(double v)
{
    return std::fabs(v) >= 100.0 ? QString::number(std::llround(v)) : QString::number(v, 'g', 3);
}

QString percent(double fraction) { return QString::number(100.0 * fraction, 'g', 2) + QLatin1Char('%'); }

QString tr(const char* text) { return QCoreApplication::translate("MappingCaption", text); }

} // namespace

Mapping mappingForKernel(const convlab::Kernel& kernel, double scale, double offset)
{
    const double magnitude = kernel.absSum();
    if (!(magnitude > 0.0)) return Mapping::Clamp; // an all-zero kernel gives zeros: nothing signed
    const double sum = kernel.sum() * scale;
    const bool zeroSum = std::fabs(kernel.sum()) <= kZeroSumTolerance * magnitude;
    if (offset != 0.0) return Mapping::Clamp;
    return zeroSum || sum < 0.0 ? Mapping::Diverging : Mapping::Clamp;
}

QString mappingCaption(const CaptionFacts& f)
{
    const QString range = tr("0…%1").arg(number(f.range));
    switch (f.mapping) {
    case Mapping::Clamp: {
        QString text = tr("result · clamped to %1").arg(range);
        if (f.fileBits > 0 && f.outsideFraction > 0.0)
            text += tr("; %1 of the values lie outside and clip in %2-bit files")
                        .arg(percent(f.outsideFraction))
                        .arg(f.fileBits);
        return text;
    }
    case Mapping::Abs: return tr("result · absolute value (sign dropped), %1").arg(range);
    case Mapping::Offset: return tr("result · offset: mid-grey is 0, ±%1").arg(number(f.range / 2.0));
    case Mapping::Normalize:
        return f.statsKnown ? tr("result · stretched from min %1 to max %2").arg(number(f.lo), number(f.hi))
                            : tr("result · stretched min to max");
    case Mapping::Diverging: {
        if (!f.statsKnown) return tr("result · signed: blue below 0, red above");
        if (f.clippedFraction > 0.0)
            return tr("result · signed, ±%1 at full colour (%2 of values beyond)")
                .arg(number(f.limit), percent(f.clippedFraction));
        return tr("result · signed, ±%1 at full colour").arg(number(f.limit));
    }
    }
    return {};
}

} // namespace display
