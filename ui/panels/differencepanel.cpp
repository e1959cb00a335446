// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/differencepanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "panels/controlspanel.h"
#include "convlab/error.h"
#include "workbench/workbenchdocument.h"
#include "view/differencescale.h"
#include "view/imageview.h"

QString DifferencePanel::pathLabel(const convlab::ConvolveParams& p, const convlab::RunReport& r)
{
    QString label = QString::fromStdString(convlab::methodName(r.method) + " on " + convlab::deviceName(r.device));
    if (p.method == convlab::Method::Auto) label += tr(" (chosen by auto)");
    return label;
}

void DifferencePanel::attach(WorkbenchDocument* doc, ImageView* view)
{
    view_ = view;
    if (view) {
        connect(this, &DifferencePanel::locateRequested, view, &ImageView::centreOnPixel);
        // Centred at a zoom of 4 or more, one pixel among many still needs finding: ring it.
        connect(this, &DifferencePanel::locateRequested, view, &ImageView::ringPixel);
    }
    connect(this, &DifferencePanel::compareRequested, doc, [this, doc] {
        if (!doc->result()) {
            showMessage(tr("No result yet: open an image first."));
            return;
        }
        setRunning(true);
        try {
            doc->compare(method(), device());
        } catch (const convlab::Error& e) {
            setRunning(false);
            showMessage(QString::fromUtf8(e.what()));
        }
    });
    const auto follow = [this, doc] { showComparisonOf(*doc); };
    connect(doc, &WorkbenchDocument::comparisonChanged, this, follow);
    connect(doc, &WorkbenchDocument::comparisonStarted, this, follow);
    connect(doc, &WorkbenchDocument::displayChannelChanged, this, follow);
    connect(doc, &WorkbenchDocument::displayStateChanged, this, follow); // the View menu's scale
    connect(doc, &WorkbenchDocument::comparisonFailed, this, [this](const QString& m) {
        setRunning(false);
        showMessage(m);
    });
}

void DifferencePanel::showComparisonOf(const WorkbenchDocument& doc)
{
    if (doc.comparing() && doc.comparison()) { // Compare pressed again: the figures to come
        markStale(false, false);
        setRunning(true);
        return;
    }
    if (const WorkbenchDocument::Comparison* c = doc.comparison()) {
        setRunning(false);
        showFigures(doc, *c);
        markStale(false, false);
        return;
    }
    if (view_) view_->clearRing(); // the pixel it pointed at is of an older result
    if (const WorkbenchDocument::Comparison* old = doc.staleComparison()) {
        // An edit made the figures old: they stay, greyed, until a comparison of the new result.
        compare_->setEnabled(!doc.comparing());
        showFigures(doc, *old);
        markStale(true, doc.comparing());
        return;
    }
    markStale(false, false);
    // Whatever was compared is of another image.
    setRunning(doc.comparing());
    if (!doc.comparing()) showMessage(tr("Pick path B and press Compare."));
}

void DifferencePanel::showFigures(const WorkbenchDocument& doc, const WorkbenchDocument::Comparison& c)
{
    const WorkbenchDocument::Result& a = *doc.result();
    // View > Channel: the figures of the channel on screen alone.
    const int channel = doc.displayChannel();
    const bool one = channel >= 0 && channel < int(c.channelStats.size());
    const QString scope =
        one ? tr("channel %1 only").arg(WorkbenchDocument::channelName(channel, a.image ? a.image->channels : a.channels,
                                                                         a.source && a.source->hasAlpha))
            : QString();
    showStats(one ? c.channelStats[std::size_t(channel)] : c.stats, pathLabel(a.params, a.report),
              pathLabel(c.paramsB, c.reportB), scope);
    // The heat map's scale follows the largest difference over every channel, as the view's does.
    // From the document's settings: the view may follow them only after this panel.
    const display::State& state = doc.displayState();
    const double fixed = view_ ? display::fixedDifferenceScale(state.differenceAbsoluteMax,
                                                               ImageView::kDefaultDifferenceFraction, view_->displayRange())
                               : 0.0;
    scale_->setText(view_ ? display::differenceScaleNote(state.differenceScale, c.stats.maxAbs, fixed) : QString());
    scale_->setVisible(!scale_->text().isEmpty());
}

void DifferencePanel::markStale(bool stale, bool comparingAgain)
{
    stale_ = stale;
    // Grey, so that the eye does not take them for the result on screen.
    const QString style = stale ? QStringLiteral("color: gray;") : QString();
    stats_->setStyleSheet(style);
    scale_->setStyleSheet(style);
    if (stale) {
        stats_->setText((comparingAgain ? tr("stale: comparing again…") : tr("stale: press Compare")) + '\n' +
                        stats_->text());
        locate_->hide(); // its pixel is of the older result
    }
}

QString DifferencePanel::scaleText() const { return scale_->isHidden() ? QString() : scale_->text(); }

DifferencePanel::DifferencePanel(QWidget* parent) : QWidget(parent)
{
    method_ = new QComboBox;
    fillMethodCombo(method_);
    method_->setCurrentIndex(method_->findData(int(convlab::Method::Reference)));
    backend_ = new QComboBox;
    fillBackendCombo(backend_);
    compare_ = new QPushButton(tr("Compare"));
    compare_->setToolTip(tr("Run path B with the parameters of the shown result and compare"));
    stats_ = new QLabel(tr("Pick path B and press Compare."));
    stats_->setWordWrap(true);
    stats_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    locate_ = new QPushButton;
    locate_->setFlat(true);
    locate_->setCursor(Qt::PointingHandCursor);
    locate_->setToolTip(tr("Centre the view on the largest difference"));
    locate_->hide();
    scale_ = new QLabel;
    scale_->setWordWrap(true);
    scale_->setToolTip(tr("The |A−B| drawn white in View > Difference: the fixed scale (View > Difference "
                          "Scale) while the largest difference reaches 1/255 of it, else the largest "
                          "difference itself, so that no difference is drawn all black"));
    scale_->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("Path B method"), method_);
    form->addRow(tr("Path B backend"), backend_);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(compare_);
    layout->addWidget(stats_);
    layout->addWidget(scale_);
    layout->addWidget(locate_);
    layout->addStretch(1);

    connect(compare_, &QPushButton::clicked, this, &DifferencePanel::compareRequested);
    connect(locate_, &QPushButton::clicked, this, [this] { emit locateRequested(maxX_, maxY_); });
}

convlab::Method DifferencePanel::method() const { return convlab::Method(method_->currentData().toInt()); }
convlab::Device DifferencePanel::device() const { return convlab::Device(backend_->currentData().toInt()); }

void DifferencePanel::setRunning(bool running)
{
    compare_->setEnabled(!running);
    if (running) {
        stats_->setText(tr("Comparing…"));
        locate_->hide();
        scale_->hide();
    }
}

void DifferencePanel::showMessage(const QString& text)
{
    stats_->setText(text);
    locate_->hide();
    scale_->hide();
}

void DifferencePanel::showStats(const convlab::DiffStats& s, const QString& pathA, const QString& pathB,
                                const QString& scope)
{
    const QString psnr = std::isinf(s.psnr) ? tr("∞ (identical)") : tr("%1 dB").arg(s.psnr, 0, 'f', 2);
    stats_->setText((scope.isEmpty() ? QString() : scope + '\n') +
                    tr("A: %1\nB: %2\nmax |A−B|  %3\nmean |A−B|  %4\nRMSE  %5\nPSNR  %6")
                        .arg(pathA, pathB)
                        .arg(s.maxAbs, 0, 'g', 6)
                        .arg(s.meanAbs, 0, 'g', 6)
                        .arg(s.rmse, 0, 'g', 6)
                        .arg(psnr) +
                    // The statistics cover the values finite in both; NaN and infinities are counted.
                    (s.nonFiniteA || s.nonFiniteB ? tr("\nnon-finite  A %1, B %2, not matched %3")
                                                        .arg(s.nonFiniteA)
                                                        .arg(s.nonFiniteB)
                                                        .arg(s.nonFiniteMismatch)
                                                  : QString()));
    maxX_ = s.maxX;
    maxY_ = s.maxY;
    locate_->setText(tr("largest at (%1, %2), channel %3 — show").arg(s.maxX).arg(s.maxY).arg(s.maxC));
    locate_->show();
}

QString DifferencePanel::statsText() const { return stats_->text(); }
