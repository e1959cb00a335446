// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/probepanel.h"

#include "workbench/workbenchdocument.h"
#include "view/imageview.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QShowEvent>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "convlab/error.h"

namespace {

const QColor kPaddedTint(255, 226, 180);   // read through the border rule from inside the image
const QColor kConstantTint(214, 222, 240); // the border constant

QString num(double v, int digits = 4) { return QString::number(v, 'g', digits); }

QString coord(long long x, long long y) { return QStringLiteral("(%1, %2)").arg(x).arg(y); }

QTableWidget* makeGrid(QWidget* parent)
{
    auto* t = new QTableWidget(parent);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    const QFontMetrics fm = t->fontMetrics();
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    t->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    t->horizontalHeader()->setDefaultSectionSize(fm.horizontalAdvance(QStringLiteral("-1.234e+05")) + 8);
    t->horizontalHeader()->setMinimumSectionSize(8);
    t->verticalHeader()->setDefaultSectionSize(fm.height() + 6);
    return t;
}

} // namespace

void ProbePanel::attach(WorkbenchDocument* doc, ImageView* view)
{
    if (view)
        connect(view, &ImageView::pixelClicked, this, [this](int x, int y) {
            setPixel(x, y);
            if (parentWidget()) parentWidget()->raise(); // the dock
        });
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
    readDevicePixel();
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
    top->addWidget(new QLabel(tr("channel")));
    top->addWidget(channel_, 1);

    flipNote_ = new QLabel;
    flipNote_->setWordWrap(true);
    tabs_ = new QTabWidget;
    const QString tabNames[] = {tr("Neighbourhood"), tr("Applied kernel"), tr("Products")};
    const QString tabTips[] = {tr("The input values the kernel reads; tinted italic cells lie outside the image"),
                               tr("The weights as multiplied, cell by cell, with the neighbourhood"),
                               tr("Weight × input for every tap: their sum is the output before scale and offset")};
    for (int i = 0; i < 3; ++i) {
        grids_[i] = makeGrid(tabs_);
        tabs_->addTab(grids_[i], tabNames[i]);
        tabs_->setTabToolTip(i, tabTips[i]);
    }
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(flipNote_);
    layout->addWidget(tabs_, 1);
    layout->addWidget(summary_);

    connect(x_, &QSpinBox::valueChanged, this, [this](int x) { setPixel(x, pixel_.y()); });
    connect(y_, &QSpinBox::valueChanged, this, [this](int y) { setPixel(pixel_.x(), y); });
    connect(channel_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    refresh();
}

QTableWidget* ProbePanel::grid(Grid g) const { return grids_[int(g)]; }

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
    if (newSource) fillChannels();
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
        return;
    }
    try {
        probe_ = convlab::probePixel(*source_, params_, pixel_.x(), pixel_.y(), channel());
    } catch (const convlab::Error& e) {
        flipNote_->clear();
        summary_->setText(tr("Cannot probe: %1").arg(QString::fromUtf8(e.what())));
        fillGrids();
        return;
    }
    const convlab::PixelProbe& p = *probe_;
    flipNote_->setText(p.semantics == convlab::Semantics::Convolution
                           ? tr("Convolution applies the kernel rotated by 180° (flipped in x and y, anchor "
                                "mirrored): that is what sliding it over the image means.")
                           : tr("Correlation applies the kernel as written, anchor included."));
    fillGrids();

    QString rows;
    auto row = [&rows](const QString& name, const QString& value) {
        rows += QStringLiteral("<tr><td>%1</td><td>&nbsp;%2</td></tr>").arg(name, value);
    };
    if (p.passedThrough) {
        row(tr("value"), tr("%1 — the alpha channel is passed through unfiltered").arg(num(p.value, 9)));
    } else {
        row(tr("Σ weight × input"), num(p.sum, 10));
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
    const int side = std::max(p.applied.width, p.applied.height);
    if (!p.passedThrough && side > kMaxGridSide)
        row(tr("note"), tr("the grids show kernels up to %1×%1").arg(kMaxGridSide));
    summary_->setText(QStringLiteral("<table>%1</table>").arg(rows));
}

void ProbePanel::fillGrids()
{
    const bool show = probe_ && !probe_->passedThrough && probe_->applied.width <= kMaxGridSide &&
                      probe_->applied.height <= kMaxGridSide;
    for (QTableWidget* g : grids_) {
        g->clear();
        g->setRowCount(show ? probe_->applied.height : 0);
        g->setColumnCount(show ? probe_->applied.width : 0);
    }
    if (!show) return;
    const convlab::PixelProbe& p = *probe_;
    const convlab::Kernel& k = p.applied;
    const int ax = k.ax(), ay = k.ay();
    const QString mode = QString::fromStdString(convlab::borderName(p.border.mode));
    QStringList xs, ys, us, vs;
    for (int u = 0; u < k.width; ++u) {
        xs << QString::number(p.x - ax + u);
        us << QStringLiteral("u%1").arg(u);
    }
    for (int v = 0; v < k.height; ++v) {
        ys << QString::number(p.y - ay + v);
        vs << QStringLiteral("v%1").arg(v);
    }
    grids_[int(Grid::Input)]->setHorizontalHeaderLabels(xs);
    grids_[int(Grid::Input)]->setVerticalHeaderLabels(ys);
    grids_[int(Grid::Products)]->setHorizontalHeaderLabels(xs);
    grids_[int(Grid::Products)]->setVerticalHeaderLabels(ys);
    grids_[int(Grid::Kernel)]->setHorizontalHeaderLabels(us);
    grids_[int(Grid::Kernel)]->setVerticalHeaderLabels(vs);

    QFont italic = font();
    italic.setItalic(true);
    QFont bold = font();
    bold.setBold(true);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) {
            const convlab::ProbeTap& t = p.taps[static_cast<std::size_t>(v) * k.width + u];
            auto* in = new QTableWidgetItem(num(t.value));
            auto* w = new QTableWidgetItem(num(t.weight));
            auto* prod = new QTableWidgetItem(num(t.product));
            QString where = tr("input at %1 = %2").arg(coord(t.x, t.y), num(t.value, 9));
            if (t.padded) {
                where += t.sourceX < 0 ? tr("\noutside the image: the border constant")
                                       : tr("\noutside the image: %1 reads %2").arg(mode, coord(t.sourceX, t.sourceY));
                for (QTableWidgetItem* item : {in, prod}) {
                    item->setFont(italic);
                    item->setBackground(t.sourceX < 0 ? kConstantTint : kPaddedTint);
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
            grids_[int(Grid::Input)]->setItem(v, u, in);
            grids_[int(Grid::Kernel)]->setItem(v, u, w);
            grids_[int(Grid::Products)]->setItem(v, u, prod);
        }
}
