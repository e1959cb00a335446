// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/histogrampanel.h"

#include <QEvent>
#include <QCheckBox>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "convlab/convolve.h"
#include "convlab/error.h"
#include "workbench/workbenchdocument.h"

namespace {

QString num(double v) { return QString::number(v, 'g', 4); }

// The channels the view maps as colour (alpha, the last of 2 or 4, is drawn as coverage).
int colourChannels(int channels) { return channels == 2 || channels == 4 ? channels - 1 : channels; }

QColor channelColour(int c, int channels)
{
    if (c >= colourChannels(channels)) return QColor(150, 150, 150); // alpha
    if (colourChannels(channels) < 3) return QColor(60, 60, 60);
    static const QColor rgb[] = {QColor(210, 40, 40), QColor(30, 150, 50), QColor(40, 80, 220)};
    return rgb[c];
}

// Finite range and largest magnitude of the colour channels, from the histogram's extremes.
struct ColourRange {
    double lo = 0.0, hi = 0.0, maxAbs = 0.0;
    double signedLimit = 0.0; // the diverging map's ±limit
};

// The diverging map's limit read from the counts, as the view reads it from the values
// (convlab::robustSymmetricLimit): the |v| display::kSignedQuantile of the values stay within,
// to a bin's width (exact for one bin per whole number); max|v| when that is zero.
double signedLimit(const convlab::Histogram& h, int colourChannels, double maxAbs)
{
    std::vector<std::pair<double, std::uint64_t>> magnitudes;
    std::uint64_t total = 0;
    const bool whole = h.binWidth() == 1.0 && h.binCentre(0) == std::floor(h.binCentre(0));
    const double halfBin = whole ? 0.0 : h.binWidth() / 2;
    for (int c = 0; c < colourChannels; ++c)
        for (int i = 0; i < h.bins; ++i)
            if (const std::uint64_t n = h.channels[std::size_t(c)].counts[std::size_t(i)]) {
                magnitudes.push_back({std::fabs(h.binCentre(i)), n});
                total += n;
            }
    if (!total) return maxAbs;
    std::sort(magnitudes.begin(), magnitudes.end());
    const auto rank = static_cast<std::uint64_t>(std::ceil(display::kSignedQuantile * double(total)));
    std::uint64_t seen = 0;
    for (const auto& [magnitude, n] : magnitudes) {
        seen += n;
        if (seen >= rank) return magnitude > 0.0 ? std::min(maxAbs, magnitude + halfBin) : maxAbs;
    }
    return maxAbs;
}

ColourRange colourRange(const convlab::Histogram& h)
{
    ColourRange r;
    bool any = false;
    const int n = colourChannels(int(h.channels.size()));
    for (int c = 0; c < n; ++c) {
        const convlab::ChannelHistogram& ch = h.channels[std::size_t(c)];
        if (!ch.finite) continue;
        r.lo = any ? std::min(r.lo, double(ch.min)) : ch.min;
        r.hi = any ? std::max(r.hi, double(ch.max)) : ch.max;
        any = true;
    }
    r.maxAbs = std::max(std::fabs(r.lo), std::fabs(r.hi));
    r.signedLimit = signedLimit(h, n, r.maxAbs);
    return r;
}

} // namespace

// Counts per channel as step curves over the value axis, with the mapping's markers as
// vertical lines. The axis spans the histogram's range and every marker.
class HistogramPlot : public QWidget {
public:
    // Narrow enough for the panels' side of a 1280-px window (its viewport is about 200 px wide).
    explicit HistogramPlot(QWidget* parent = nullptr) : QWidget(parent) { setMinimumSize(160, 130); }
    void setData(std::shared_ptr<const convlab::Histogram> h, std::vector<HistogramPanel::Marker> markers)
    {
        histogram_ = std::move(h);
        markers_ = std::move(markers);
        update();
    }
    void setLogCounts(bool on)
    {
        log_ = on;
        update();
    }
    void setChannel(int c)
    {
        channel_ = c;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QFontMetrics fm = fontMetrics();
        const QRect r(6, fm.height() + 4, std::max(8, width() - 12), std::max(8, height() - 2 * fm.height() - 10));
        const QColor text = palette().color(QPalette::WindowText);
        p.fillRect(r, palette().color(QPalette::Base));
        p.setPen(text);
        p.drawRect(r);
        if (!histogram_) {
            p.drawText(r, Qt::AlignCenter, tr("no image"));
            return;
        }
        const convlab::Histogram& h = *histogram_;
        double x0 = h.lo, x1 = h.hi;
        for (const HistogramPanel::Marker& m : markers_) {
            x0 = std::min(x0, m.value);
            x1 = std::max(x1, m.value);
        }
        const double pad = 0.03 * (x1 - x0);
        x0 -= pad;
        x1 += pad;
        const auto xAt = [&](double v) { return r.left() + (v - x0) / (x1 - x0) * r.width(); };
        drawCurves(p, r, xAt);
        drawMarkers(p, r, xAt);
        p.setPen(text);
        p.drawText(QRect(r.left(), r.bottom() + 2, r.width(), fm.height()), Qt::AlignLeft, num(x0 + pad));
        p.drawText(QRect(r.left(), r.bottom() + 2, r.width(), fm.height()), Qt::AlignRight, num(x1 - pad));
    }

private:
    template <class XAt> void drawCurves(QPainter& p, const QRect& r, XAt xAt) const
    {
        const convlab::Histogram& h = *histogram_;
        const int channels = int(h.channels.size());
        // Scaled to the tallest colour bin: an alpha plane of one level would flatten the rest.
        std::uint64_t top = 1;
        if (channel_ >= 0 && channel_ < channels)
            for (std::uint64_t n : h.channels[std::size_t(channel_)].counts) top = std::max(top, n);
        else
            for (int c = 0; c < colourChannels(channels); ++c)
                for (std::uint64_t n : h.channels[std::size_t(c)].counts) top = std::max(top, n);
        const auto heightOf = [&](std::uint64_t n) {
            const double t = log_ ? std::log1p(double(n)) / std::log1p(double(top)) : double(n) / double(top);
            return r.bottom() - std::min(t, 1.0) * (r.height() - 2);
        };
        for (int c = channels - 1; c >= 0; --c) {
            if (channel_ >= 0 && c != channel_) continue;
            const std::vector<std::uint64_t>& counts = h.channels[std::size_t(c)].counts;
            QPainterPath path;
            path.moveTo(xAt(h.lo), r.bottom());
            for (int i = 0; i < h.bins; ++i) {
                const double y = heightOf(counts[std::size_t(i)]);
                path.lineTo(xAt(h.lo + i * h.binWidth()), y);
                path.lineTo(xAt(h.lo + (i + 1) * h.binWidth()), y);
            }
            path.lineTo(xAt(h.hi), r.bottom());
            const QColor colour = channelColour(c, channels);
            QColor fill = colour;
            fill.setAlpha(40);
            p.setPen(QPen(colour, 1.2, c >= colourChannels(channels) ? Qt::DashLine : Qt::SolidLine));
            p.setBrush(fill);
            p.drawPath(path);
        }
        p.setBrush(Qt::NoBrush);
    }

    template <class XAt> void drawMarkers(QPainter& p, const QRect& r, XAt xAt) const
    {
        const QFontMetrics fm = fontMetrics();
        int row = 0;
        for (const HistogramPanel::Marker& m : markers_) {
            const double x = xAt(m.value);
            p.setPen(QPen(QColor(230, 120, 20), 1.5, Qt::DashLine));
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
            // Labels alternate between two heights so that close markers stay legible.
            const QString label = QStringLiteral("%1 %2").arg(m.label, num(m.value));
            const int w = fm.horizontalAdvance(label) + 4;
            const double left = std::clamp(x - w / 2.0, 0.0, double(width() - w));
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(QRectF(left, row % 2 ? r.top() + 2 : 0, w, fm.height()), Qt::AlignCenter, label);
            ++row;
        }
    }

    std::shared_ptr<const convlab::Histogram> histogram_;
    std::vector<HistogramPanel::Marker> markers_;
    bool log_ = false;
    int channel_ = -1;
};

HistogramPanel::HistogramPanel(QWidget* parent) : QWidget(parent)
{
    pool_.setMaxThreadCount(1);
    // Counting is for a panel read after the picture: at idle priority (SCHED_IDLE on Linux) it
    // runs on cores the engine, the GL driver and the UI thread leave free. On the 2-core
    // machine a 1080p result's count, at normal priority, had run beside llvmpipe's drawing and
    // added about 10 ms to every edit's display.
    pool_.setThreadPriority(QThread::IdlePriority);
    log_ = new QCheckBox(tr("Log counts"));
    log_->setToolTip(tr("Heights as log(1 + count): rare values stay visible next to a tall peak"));
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(log_);
    for (Which which : {Which::Result, Which::Source}) {
        Slot& s = slot(which);
        const bool result = which == Which::Result;
        auto* title = new QLabel(result ? tr("<b>Result</b>, marked where the view's mapping reaches black and white")
                                        : tr("<b>Source</b>, marked where it is drawn black and white"));
        title->setWordWrap(true);
        s.plot = new HistogramPlot;
        s.plot->setObjectName(result ? "resultHistogram" : "sourceHistogram");
        s.info = new QLabel;
        s.info->setWordWrap(true);
        s.info->setObjectName(result ? "resultInfo" : "sourceInfo");
        s.info->setTextInteractionFlags(Qt::TextSelectableByMouse);
        layout->addWidget(title);
        layout->addWidget(s.plot, 1);
        layout->addWidget(s.info);
    }
    connect(log_, &QCheckBox::toggled, this, [this](bool on) {
        for (Which which : {Which::Result, Which::Source}) slot(which).plot->setLogCounts(on);
    });
}

HistogramPanel::~HistogramPanel()
{
    pool_.clear();
    pool_.waitForDone();
}

void HistogramPanel::attach(WorkbenchDocument* doc, ImageView* view)
{
    Q_UNUSED(view); // the mapping is the document's, as the view draws it
    doc_ = doc;
    connect(doc, &WorkbenchDocument::displayStateChanged, this, [this, doc] {
        if (doc->displayState().mapping != mapping_) setMapping(doc->displayState().mapping);
        if (doc->displayState().floatRangeByValues != floatRangeByValues_) {
            floatRangeByValues_ = doc->displayState().floatRangeByValues;
            refreshMarkers(Which::Result);
            refreshMarkers(Which::Source);
        }
    });
    floatRangeByValues_ = doc->displayState().floatRangeByValues;
    setMapping(doc->displayState().mapping);
    connect(doc, &WorkbenchDocument::resultChanged, this, &HistogramPanel::takeResult);
    connect(doc, &WorkbenchDocument::resultHostReady, this, &HistogramPanel::takeResult);
    connect(doc, &WorkbenchDocument::resultHistogramCounted, this,
            [this](std::shared_ptr<const convlab::Histogram> h) {
                result_.latest.invalidate(); // a host count of an older result is superseded
                result_.image.reset();
                if (doc_->result() && doc_->result()->source) result_.depth = doc_->result()->source->depth;
                display(Which::Result, std::move(h));
            });
    connect(doc, &WorkbenchDocument::sourceChanged, this, [this, doc] { setImage(Which::Source, doc->source()); });
    connect(doc, &WorkbenchDocument::displayChannelChanged, this, &HistogramPanel::setChannel);
    setChannel(doc->displayChannel());
    setImage(Which::Source, doc->source());
    takeResult();
}

void HistogramPanel::takeResult()
{
    const WorkbenchDocument::Result* r = doc_->result();
    countOwed_ = false;
    const bool onDevice = r && !r->image;
    // Off screen: counted when the panel is next painted. Behind another tab of a shown window
    // always; a hidden panel of its own only for a result on the device (a host result is then
    // counted at once, so that the panel's figures are there when asked for).
    if (r && (hiddenInShownWindow() || (onDevice && !isVisible()))) {
        countOwed_ = true;
        result_.latest.invalidate(); // an older count under way is superseded
        return;
    }
    if (onDevice)
        doc_->countResultHistogramOnDevice(kBins); // the plot keeps the last counts until then
    else
        setImage(Which::Result, r ? r->image : nullptr);
}

bool HistogramPanel::hiddenInShownWindow() const
{
    return window() != this && window()->isVisible() && (!isVisible() || visibleRegion().isEmpty());
}

bool HistogramPanel::event(QEvent* e)
{
    // A paint means the panel is on screen (raising a dock's tab sends no show event).
    if (e->type() == QEvent::Paint && countOwed_) {
        countOwed_ = false;
        QMetaObject::invokeMethod(this, &HistogramPanel::takeResult, Qt::QueuedConnection);
    }
    return QWidget::event(e);
}

void HistogramPanel::setMapping(display::Mapping m)
{
    mapping_ = m;
    refreshMarkers(Which::Result);
    emit updated();
}

void HistogramPanel::setLogCounts(bool on) { log_->setChecked(on); }

void HistogramPanel::setChannel(int c)
{
    channel_ = c;
    for (Which which : {Which::Result, Which::Source}) slot(which).plot->setChannel(c);
    emit updated();
}

bool HistogramPanel::pending() const { return result_.latest.pending() || source_.latest.pending(); }

const convlab::Histogram* HistogramPanel::histogram(Which which) const { return slot(which).histogram.get(); }

QString HistogramPanel::infoText(Which which) const { return slot(which).info->text(); }

void HistogramPanel::setImage(Which which, std::shared_ptr<const convlab::Image> image)
{
    Slot& s = slot(which);
    s.image = image;
    if (image) s.depth = image->depth;
    if (!image || image->empty()) {
        s.latest.invalidate();
        display(which, nullptr);
        return;
    }
    const auto count = [image](const std::atomic<bool>* cancel) {
        return std::make_shared<const convlab::Histogram>(convlab::imageHistogram(*image, kBins, cancel));
    };
    if (image->data.size() <= kSyncValues) {
        s.latest.invalidate(); // a larger image counted on the worker is superseded
        display(which, count(nullptr));
        return;
    }
    const LatestOnly::Ticket ticket = s.latest.begin();
    pool_.start([this, which, ticket, count] {
        std::shared_ptr<const convlab::Histogram> h;
        try {
            h = count(ticket.cancel.get());
        } catch (const convlab::Cancelled&) {
        } catch (const std::bad_alloc&) {
        }
        // The destructor waits for this task, so the panel is alive while the call is queued.
        QMetaObject::invokeMethod(this, [this, which, id = ticket.id, h] {
            if (slot(which).latest.finish(id) && h) display(which, h);
        }, Qt::QueuedConnection);
    });
}

void HistogramPanel::display(Which which, std::shared_ptr<const convlab::Histogram> h)
{
    Slot& s = slot(which);
    s.histogram = std::move(h);
    QStringList parts;
    if (s.histogram) {
        static const char* const kNames[] = {"R", "G", "B"};
        const int channels = int(s.histogram->channels.size());
        for (int c = 0; c < channels; ++c) {
            const convlab::ChannelHistogram& ch = s.histogram->channels[std::size_t(c)];
            if (!ch.nonFinite()) continue;
            const QString name = c >= colourChannels(channels) ? tr("alpha")
                                 : colourChannels(channels) == 3 ? QString(kNames[c])
                                                                 : tr("grey");
            parts << tr("%1: NaN %2, +∞ %3, −∞ %4").arg(name).arg(ch.nan).arg(ch.posInf).arg(ch.negInf);
        }
        s.info->setText(parts.isEmpty() ? tr("All values finite; %1 bins of %2.")
                                              .arg(s.histogram->bins)
                                              .arg(num(s.histogram->binWidth()))
                                        : tr("Not counted in the bins: %1.").arg(parts.join(QStringLiteral("; "))));
    } else {
        s.info->setText(tr("No image."));
    }
    refreshMarkers(which);
    if (which == Which::Source) refreshMarkers(Which::Result); // a float original's range is the result's
    emit updated();
}

void HistogramPanel::refreshMarkers(Which which)
{
    const Slot& s = slot(which);
    s.plot->setData(s.histogram, markers(which));
}

std::vector<HistogramPanel::Marker> HistogramPanel::markers(Which which) const
{
    const Slot& s = slot(which);
    if (!s.histogram) return {};
    const ColourRange r = colourRange(*s.histogram);
    const display::Mapping m = which == Which::Result ? mapping_ : display::Mapping::Clamp;
    return mappingMarkers(m, displayRange(s.depth), r.lo, r.hi, r.signedLimit);
}

double HistogramPanel::displayRange(convlab::SampleDepth depth) const
{
    // The view's rule (ImageView::displayRange): a float image maps by what the original's
    // values say, from its largest finite colour value.
    if (depth != convlab::SampleDepth::F32 || !floatRangeByValues_) return convlab::depthMax(depth);
    const convlab::Histogram* original = source_.histogram ? source_.histogram.get() : result_.histogram.get();
    return convlab::displayRange(depth, original ? colourRange(*original).hi : 0.0);
}

std::vector<HistogramPanel::Marker> HistogramPanel::mappingMarkers(display::Mapping m, double nominal, double lo,
                                                                   double hi, double maxAbs)
{
    using Mapping = display::Mapping;
    switch (m) {
    case Mapping::Clamp:
        return {{0.0, tr("black")}, {nominal, tr("white")}};
    case Mapping::Abs:
        return {{-nominal, tr("white")}, {0.0, tr("black")}, {nominal, tr("white")}};
    case Mapping::Normalize:
        return {{lo, tr("black")}, {hi, tr("white")}};
    case Mapping::Offset:
        return {{-nominal / 2, tr("black")}, {0.0, tr("mid-grey")}, {nominal / 2, tr("white")}};
    case Mapping::Diverging:
        return {{-maxAbs, tr("blue")}, {0.0, tr("white")}, {maxAbs, tr("red")}};
    }
    return {};
}
