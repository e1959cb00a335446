// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/probepanel.h"
#include "panels/panels.h"

#include "workbench/workbenchdocument.h"
#include "view/imageview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QHideEvent>
#include <QResizeEvent>
#include <QShowEvent>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "convlab/error.h"
#include "panels/probestepper.h"
#include "view/probeoverlay.h"

namespace {

QString num(double v, int digits = 4) { return QString::number(v, 'g', digits); }

QString coord(long long x, long long y) { return QStringLiteral("(%1, %2)").arg(x).arg(y); }

QTableWidget* makeTable(QWidget* parent)
{
    auto* t = new QTableWidget(parent);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    const QFontMetrics fm = t->fontMetrics();
    t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    t->horizontalHeader()->setMinimumSectionSize(8);
    t->verticalHeader()->setDefaultSectionSize(fm.height() + 6);
    return t;
}

// The operator between two grids, in every row of its narrow column.
QTableWidgetItem* operatorItem(const QString& op)
{
    auto* item = new QTableWidgetItem(op);
    item->setTextAlignment(Qt::AlignCenter);
    item->setFlags(Qt::ItemIsEnabled);
    item->setForeground(Qt::gray);
    return item;
}

// The window's extent along one axis: `side` taps at most, centred on the anchor `a` of an
// axis of `n` taps as far as its ends allow.
int windowStart(int n, int a, int side)
{
    if (n <= side) return 0;
    return std::clamp(a - side / 2, 0, n - side);
}

} // namespace

void ProbePanel::attach(WorkbenchDocument* doc, ImageView* view)
{
    view_ = view;
    if (view) {
        attachSweepOverlay();
        connect(view, &ImageView::pixelClicked, this, [this](int x, int y) {
            fedInput_.reset(); // a click on the result asks for its footprint only
            setPixel(x, y);
            if (QDockWidget* dock = dockOf(this)) dock->raise();
            showMarks();
        });
        // A click on the original: that input pixel and the outputs it feeds, as well.
        connect(view, &ImageView::inputPixelClicked, this, [this](int x, int y) {
            fedInput_ = QPoint(x, y);
            showMarks();
        });
    }
    doc_ = doc;
    auto takeResult = [this, doc] {
        const WorkbenchDocument::Result& r = *doc->result();
        devicePixel_.clear();
        setRun(r.source, r.params, r.image, r.report.method);
        setChannel(doc->displayChannel()); // a new image refills the channels
        readDevicePixel();
    };
    connect(doc, &WorkbenchDocument::resultChanged, this, takeResult);
    // A CUDA result's values that arrive after it (save, compare, a histogram shown beside).
    connect(doc, &WorkbenchDocument::resultHostReady, this, [this, doc] {
        const WorkbenchDocument::Result& r = *doc->result();
        setRun(r.source, r.params, r.image, r.report.method);
    });
    // The probe needs one value of the result, not the image: a CUDA result stays on the
    // device and the probed pixel alone is read from there, on the render worker.
    connect(this, &ProbePanel::pixelChanged, this, &ProbePanel::readDevicePixel);
    connect(doc, &WorkbenchDocument::resultPixelRead, this, [this](int x, int y, const QVector<float>& values) {
        if (QPoint(x, y) != pixel_) return; // an older read; the newer one is on its way
        devicePixel_ = values;
        devicePixelAt_ = QPoint(x, y);
        refresh();
    });
    // View > Channel: the probe takes apart the channel on screen (All leaves its choice).
    connect(doc, &WorkbenchDocument::displayChannelChanged, this, &ProbePanel::setChannel);
    if (doc->result()) takeResult(); // a panel that starts following a document with a result
}

void ProbePanel::showEvent(QShowEvent* e)
{
    QWidget::showEvent(e);
    followDock();
    readDevicePixel();
    showMarks();
    centreOnAnchor();
}

void ProbePanel::followDock()
{
    auto* dock = dockOf(this);
    if (followsDock_ || !dock) return;
    followsDock_ = true;
    // Its tab brought to the front or sent behind: queued, as the dock is moved after the signal.
    connect(dock, &QDockWidget::visibilityChanged, this, &ProbePanel::showMarks, Qt::QueuedConnection);
}

bool ProbePanel::onScreen() const { return isVisible() && !visibleRegion().isEmpty(); }

// The marks belong to the probe on screen: a panel hidden (its dock closed or behind another
// tab) leaves the picture clean.
void ProbePanel::hideEvent(QHideEvent* e)
{
    QWidget::hideEvent(e);
    stepper_->setPlaying(false); // nobody watches the slide
    showMarks();
}

void ProbePanel::resizeEvent(QResizeEvent* e)
{
    QWidget::resizeEvent(e);
    centreOnAnchor();
}

void ProbePanel::showFedMarks()
{
    const convlab::Kernel& k = params_.kernel;
    try {
        if (!fedInput_ || !onScreen() || !source_) throw convlab::Error("nothing to show");
        view_->setFedMarks(*fedInput_, outputsFedBy(*fedInput_, QSize(source_->width, source_->height),
                                                    QSize(k.width, k.height), QPoint(k.anchorX, k.anchorY),
                                                    params_.semantics));
    } catch (const convlab::Error&) {
        view_->clearFedMarks(); // none asked for, hidden, or a pixel of an image since replaced
    }
}

void ProbePanel::showMarks()
{
    if (!view_) return;
    showFedMarks();
    showSweepMarks();
    if (!onScreen() || !source_ || !probe_) {
        view_->clearProbeMarks();
        return;
    }
    const convlab::Kernel& k = params_.kernel;
    try {
        view_->setProbeMarks(pixel_, kernelFootprint(pixel_, QSize(source_->width, source_->height),
                                                     QSize(k.width, k.height), QPoint(k.anchorX, k.anchorY),
                                                     params_.semantics));
    } catch (const convlab::Error&) {
        view_->clearProbeMarks(); // probePixel accepted what this refuses: nothing to outline
    }
}

QRect ProbePanel::tableWindow(QSize kernel, QPoint anchor, int maxSide)
{
    if (kernel.isEmpty() || maxSide < 1 || anchor.x() < 0 || anchor.y() < 0 || anchor.x() >= kernel.width() ||
        anchor.y() >= kernel.height())
        throw convlab::Error("probe table: anchor (" + std::to_string(anchor.x()) + ", " +
                             std::to_string(anchor.y()) + ") of a " + std::to_string(kernel.width()) + "x" +
                             std::to_string(kernel.height()) + " kernel in a window of side " +
                             std::to_string(maxSide) + " cannot be shown");
    const int w = std::min(kernel.width(), maxSide), h = std::min(kernel.height(), maxSide);
    return QRect(windowStart(kernel.width(), anchor.x(), maxSide), windowStart(kernel.height(), anchor.y(), maxSide),
                 w, h);
}

void ProbePanel::readDevicePixel()
{
    if (!doc_ || !isVisible() || result_ || !doc_->result()) return;
    if (devicePixelAt_ == pixel_ && !devicePixel_.isEmpty()) return;
    const QVector<float> values = doc_->resultPixel(pixel_.x(), pixel_.y());
    if (values.isEmpty()) return; // read on the worker: resultPixelRead() follows
    devicePixel_ = values;
    devicePixelAt_ = pixel_;
    refresh();
}

ProbePanel::ProbePanel(QWidget* parent) : QWidget(parent)
{
    x_ = new QSpinBox;
    y_ = new QSpinBox;
    for (QSpinBox* s : {x_, y_}) {
        s->setRange(0, 0);
        s->setToolTip(tr("Click a pixel in the view, or use the arrow keys there (Shift: 10 pixels)"));
    }
    channel_ = new QComboBox;
    channel_->setToolTip(tr("The channel whose output is taken apart"));
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Pixel x")));
    top->addWidget(x_);
    top->addWidget(new QLabel(tr("y")));
    top->addWidget(y_);
    top->addStretch(1);
    // The channel on a row of its own: the three in one row made the panel wider than the dock
    // the image's share leaves it, and its notes were cut at the right.
    auto* channelRow = new QHBoxLayout;
    channelRow->addWidget(new QLabel(tr("channel")));
    channelRow->addWidget(channel_, 1);

    flipNote_ = new QLabel;
    flipNote_->setWordWrap(true);
    auto* legend = new QLabel(tr("<b>input neighbourhood</b> &nbsp;×&nbsp; <b>applied kernel</b> &nbsp;=&nbsp; "
                                 "<b>products</b>, cell by cell; their sum is the output before scale and offset"));
    legend->setWordWrap(true);
    legend->setToolTip(tr("Tinted italic inputs lie outside the image: the border rule gives them. "
                          "The bold cells are the anchor, the probed pixel itself."));
    table_ = makeTable(this);
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addLayout(channelRow);
    buildStepControls(layout);
    layout->addWidget(flipNote_);
    layout->addWidget(legend);
    layout->addWidget(table_, 1);
    layout->addWidget(summary_);

    connect(x_, &QSpinBox::valueChanged, this, [this](int x) { setPixel(x, pixel_.y()); });
    connect(y_, &QSpinBox::valueChanged, this, [this](int y) { setPixel(pixel_.x(), y); });
    connect(channel_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    refresh();
}

int ProbePanel::columnOf(Grid g, int u) const { return int(g) * (window_.width() + 1) + u - window_.x(); }

QTableWidgetItem* ProbePanel::cell(Grid g, int v, int u) const
{
    if (!window_.contains(QPoint(u, v))) return nullptr;
    return table_->item(v - window_.y(), columnOf(g, u));
}

QString ProbePanel::summaryText() const { return summary_->text(); }

int ProbePanel::channel() const { return std::max(0, channel_->currentIndex()); }

void ProbePanel::setChannel(int c)
{
    if (c >= 0 && c < channel_->count()) channel_->setCurrentIndex(c);
}

void ProbePanel::setRun(std::shared_ptr<const convlab::Image> source, const convlab::ConvolveParams& params,
                        std::shared_ptr<const convlab::Image> result, convlab::Method ran)
{
    const bool newSource = source != source_;
    source_ = std::move(source);
    result_ = std::move(result);
    params_ = params;
    params_.cancel = nullptr;
    ran_ = ran;
    if (newSource) {
        fillChannels();
        fitSweepRegion();
    }
    const QSignalBlocker bx(x_), by(y_);
    x_->setRange(0, source_ ? source_->width - 1 : 0);
    y_->setRange(0, source_ ? source_->height - 1 : 0);
    setPixel(pixel_.x(), pixel_.y());
    refresh();
}

void ProbePanel::fillChannels()
{
    const int previous = channel_->currentIndex();
    const QSignalBlocker block(channel_);
    channel_->clear();
    if (!source_) return;
    const int n = source_->channels;
    const bool alpha = source_->hasAlpha && n > 1;
    for (int c = 0; c < n; ++c) {
        QString name;
        if (alpha && c == n - 1)
            name = tr("alpha");
        else if (n - int(alpha) >= 3)
            name = QStringList{tr("red"), tr("green"), tr("blue")}.value(c);
        else
            name = tr("grey");
        channel_->addItem(QStringLiteral("%1 (%2)").arg(c).arg(name));
    }
    channel_->setCurrentIndex(std::clamp(previous, 0, n - 1));
}

void ProbePanel::setPixel(int x, int y)
{
    if (source_) {
        x = std::clamp(x, 0, source_->width - 1);
        y = std::clamp(y, 0, source_->height - 1);
    } else {
        x = y = 0;
    }
    const bool moved = QPoint(x, y) != pixel_;
    pixel_ = QPoint(x, y);
    if (moved && !sliding_) onProbeMovedByUser();
    {
        const QSignalBlocker bx(x_), by(y_);
        x_->setValue(x);
        y_->setValue(y);
    }
    if (!moved) return;
    refresh();
    emit pixelChanged(x, y);
}

std::optional<float> ProbePanel::displayedValue() const
{
    if (!source_) return std::nullopt;
    const int c = channel();
    if (!result_) { // a result left on the device: the pixel read from there, if it is this one
        if (devicePixelAt_ != pixel_ || c >= devicePixel_.size()) return std::nullopt;
        return devicePixel_[c];
    }
    if (!result_->sameShape(*source_) || c >= result_->channels) return std::nullopt;
    return result_->at(c, pixel_.y(), pixel_.x());
}

void ProbePanel::refresh()
{
    probe_.reset();
    if (!source_) {
        flipNote_->clear();
        summary_->setText(tr("Open an image: the probe takes apart the output value of one pixel."));
        fillGrids();
        showMarks();
        return;
    }
    try {
        probe_ = convlab::probePixel(*source_, params_, pixel_.x(), pixel_.y(), channel());
    } catch (const convlab::Error& e) {
        flipNote_->clear();
        summary_->setText(tr("Cannot probe: %1").arg(QString::fromUtf8(e.what())));
        fillGrids();
        showMarks();
        return;
    }
    const convlab::PixelProbe& p = *probe_;
    flipNote_->setText(p.semantics == convlab::Semantics::Convolution
                           ? tr("Convolution applies the kernel rotated by 180° (flipped in x and y, anchor "
                                "mirrored): that is what sliding it over the image means.")
                           : tr("Correlation applies the kernel as written, anchor included."));
    fillGrids();
    showMarks();

    QString rows;
    auto row = [&rows](const QString& name, const QString& value) {
        rows += QStringLiteral("<tr><td>%1</td><td>&nbsp;%2</td></tr>").arg(name, value);
    };
    if (p.passedThrough) {
        row(tr("value"), tr("%1 — the alpha channel is passed through unfiltered").arg(num(p.value, 9)));
    } else {
        const int taps = p.applied.width * p.applied.height;
        const int shown = window_.width() * window_.height();
        if (shown < taps) {
            // A window of a large kernel: what it shows, what lies beyond it, and the whole.
            double inWindow = 0.0;
            for (int v = window_.top(); v <= window_.bottom(); ++v)
                for (int u = window_.left(); u <= window_.right(); ++u)
                    inWindow += p.taps[static_cast<std::size_t>(v) * p.applied.width + u].product;
            row(tr("Σ shown"), tr("%1 (the %2×%3 taps around the anchor)")
                                   .arg(num(inWindow, 10))
                                   .arg(window_.width())
                                   .arg(window_.height()));
            row(tr("Σ not shown"), tr("%1 (the other %2 taps)").arg(num(p.sum - inWindow, 10)).arg(taps - shown));
        }
        row(tr("Σ weight × input"), tr("%1 (all %2 taps)").arg(num(p.sum, 10)).arg(taps));
        row(tr("scale"), num(p.scale, 10) + (params_.normalize ? tr(" (normalized: scale × 1/ΣK)") : QString()));
        row(tr("offset"), num(p.offset, 10));
        row(tr("<b>value</b>"), tr("<b>%1</b> = scale × Σ + offset, rounded to float").arg(num(p.value, 9)));
    }
    if (const std::optional<float> shown = displayedValue()) {
        const QString method = QString::fromStdString(convlab::methodName(ran_));
        QString verdict;
        if (*shown == p.value)
            verdict = tr("identical");
        else if (ran_ == convlab::Method::Reference)
            verdict = tr("<b>differs</b> by %1").arg(num(double(*shown) - double(p.value), 3));
        else
            verdict = tr("differs by %1: %2 adds in float and in another order; the reference method "
                         "matches the probe exactly")
                          .arg(num(double(*shown) - double(p.value), 3), method);
        row(tr("view shows"), tr("%1 (%2): %3").arg(num(*shown, 9), method, verdict));
    }
    for (const std::string& n : p.notices) row(tr("note"), QString::fromStdString(n).toHtmlEscaped());
    summary_->setText(QStringLiteral("<table>%1</table>").arg(rows));
    if (!stepper_->complete()) showPartialSum();
}

void ProbePanel::labelTable()
{
    const convlab::PixelProbe& p = *probe_;
    const convlab::Kernel& k = p.applied;
    QStringList columns, rows;
    for (Grid g : {Grid::Input, Grid::Kernel, Grid::Products}) {
        for (int u = window_.left(); u <= window_.right(); ++u)
            columns << (g == Grid::Kernel ? QStringLiteral("u%1").arg(u) : QString::number(p.x - k.ax() + u));
        if (g != Grid::Products) columns << QString();
    }
    for (int v = window_.top(); v <= window_.bottom(); ++v)
        rows << tr("y %1 · v%2").arg(p.y - k.ay() + v).arg(v);
    table_->setHorizontalHeaderLabels(columns);
    table_->setVerticalHeaderLabels(rows);
    table_->horizontalHeaderItem(columnOf(Grid::Kernel, window_.left()))
        ->setToolTip(tr("u, v: the applied kernel's columns and rows; the others are image x and y"));
}

void ProbePanel::fillGrids()
{
    table_->clear();
    const bool show = probe_ && !probe_->passedThrough;
    window_ = show ? tableWindow(QSize(probe_->applied.width, probe_->applied.height),
                                 QPoint(probe_->applied.ax(), probe_->applied.ay()))
                   : QRect();
    table_->setRowCount(window_.height());
    table_->setColumnCount(show ? 3 * window_.width() + 2 : 0);
    if (!show) return;
    labelTable();
    const convlab::PixelProbe& p = *probe_;
    const convlab::Kernel& k = p.applied;
    const int ax = k.ax(), ay = k.ay();
    const QString mode = QString::fromStdString(convlab::borderName(p.border.mode));

    QFont italic = font();
    italic.setItalic(true);
    QFont bold = font();
    bold.setBold(true);
    for (int v = window_.top(); v <= window_.bottom(); ++v) {
        const int r = v - window_.top();
        table_->setItem(r, columnOf(Grid::Kernel, window_.left()) - 1, operatorItem(QStringLiteral("×")));
        table_->setItem(r, columnOf(Grid::Products, window_.left()) - 1, operatorItem(QStringLiteral("=")));
        for (int u = window_.left(); u <= window_.right(); ++u) {
            const convlab::ProbeTap& t = p.taps[static_cast<std::size_t>(v) * k.width + u];
            auto* in = new QTableWidgetItem(num(t.value));
            auto* w = new QTableWidgetItem(num(t.weight));
            auto* prod = new QTableWidgetItem(num(t.product));
            prod->setData(Qt::UserRole, t.product); // the exact product, for whoever reads the table
            QString where = tr("input at %1 = %2").arg(coord(t.x, t.y), num(t.value, 9));
            if (t.padded) {
                where += t.sourceX < 0 ? tr("\noutside the image: the border constant")
                                       : tr("\noutside the image: %1 reads %2").arg(mode, coord(t.sourceX, t.sourceY));
                for (QTableWidgetItem* item : {in, prod}) {
                    item->setFont(italic);
                    item->setBackground(inventedValueTint(t.sourceX < 0));
                    item->setForeground(Qt::black);
                }
            }
            in->setToolTip(where);
            w->setToolTip(tr("applied weight K′(%1, %2) = %3").arg(v).arg(u).arg(num(t.weight, 9)));
            prod->setToolTip(tr("%1 × %2 = %3\n%4").arg(num(t.weight, 9), num(t.value, 9), num(t.product, 12), where));
            if (u == ax && v == ay)
                for (QTableWidgetItem* item : {in, w, prod}) {
                    item->setFont(bold);
                    item->setToolTip(item->toolTip() + tr("\nthe anchor: the probed pixel itself"));
                }
            table_->setItem(r, columnOf(Grid::Input, u), in);
            table_->setItem(r, columnOf(Grid::Kernel, u), w);
            table_->setItem(r, columnOf(Grid::Products, u), prod);
        }
    }
    table_->resizeColumnsToContents();
    centreOnAnchor();
}

void ProbePanel::centreOnAnchor()
{
    if (!probe_ || window_.isEmpty()) return;
    if (QTableWidgetItem* anchor = cell(Grid::Kernel, probe_->applied.ay(), probe_->applied.ax()))
        table_->scrollToItem(anchor, QAbstractItemView::PositionAtCenter);
}
