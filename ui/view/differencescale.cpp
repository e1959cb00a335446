// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/differencescale.h"

#include <QCoreApplication>
#include <cmath>
#include <string>

#include "convlab/error.h"

namespace display {

namespace {

QString number(double v) { return QString::number(v, 'g', 3); }

QString tr(const char* text) { return QCoreApplication::translate("DifferenceScale", text); }

} // namespace

double fixedDifferenceScale(double absoluteMax, double automaticFraction, double nominalRange)
{
    return absoluteMax > 0.0 ? absoluteMax : automaticFraction * nominalRange;
}

DifferenceScaleChoice adaptiveDifferenceScale(double maxAbs, double fixedScale)
{
    if (!std::isfinite(maxAbs) || maxAbs < 0.0)
        throw convlab::Error("difference scale: the largest difference " + std::to_string(maxAbs) +
                             " is not a finite value >= 0");
    if (!std::isfinite(fixedScale) || fixedScale <= 0.0)
        throw convlab::Error("difference scale: the fixed scale " + std::to_string(fixedScale) +
                             " is not a finite value > 0");
    using Reason = DifferenceScaleChoice::Reason;
    if (maxAbs == 0.0) return {fixedScale, Reason::Identical};
    if (maxAbs >= fixedScale * kVisibleDifferenceFraction) return {fixedScale, Reason::Fixed};
    return {maxAbs, Reason::LargestDifference};
}

QString describeDifferenceScale(const DifferenceScaleChoice& choice, double maxAbs, double fixedScale)
{
    using Reason = DifferenceScaleChoice::Reason;
    switch (choice.reason) {
    case Reason::Identical: return tr("no difference: fixed scale %1").arg(number(fixedScale));
    case Reason::LargestDifference:
        return tr("max %1: scale set by the largest difference (the fixed %2 would draw it black)")
            .arg(number(maxAbs), number(fixedScale));
    case Reason::Fixed: break;
    }
    return tr("max %1: fixed scale %2").arg(number(maxAbs), number(fixedScale));
}

QString differenceScaleNote(DifferenceScale mode, double maxAbs, double fixedScale)
{
    if (!std::isfinite(maxAbs) || maxAbs < 0.0) return {};
    if (mode == DifferenceScale::Relative)
        return tr("max %1: relative scale, the largest difference is white").arg(number(maxAbs));
    if (!std::isfinite(fixedScale) || fixedScale <= 0.0) return {};
    return describeDifferenceScale(adaptiveDifferenceScale(maxAbs, fixedScale), maxAbs, fixedScale);
}

} // namespace display
