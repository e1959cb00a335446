// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/analysispanel.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QScrollArea>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "view/colorbar.h"
#include "convlab/error.h"
#include "workbench/workbenchdocument.h"

namespace {

constexpr double kLogRangeDb = 80.0; // the log view spans this far below the peak
constexpr int kMaxListed = 9;        // singular values and factor entries written out

QString num(double v) { return QString::number(v, 'g', 4); }

template <typename T>
QString list(const std::vector<T>& v)
{
    QStringList parts;
    for (std::size_t i = 0; i < v.size() && i < kMaxListed; ++i) parts << num(double(v[i]));
    if (v.size() > kMaxListed) parts << QStringLiteral("… (%1 in all)").arg(v.size());
    return parts.join(QStringLiteral(", "));
}

// The display range of a response: [0, peak] linear, [peak - kLogRangeDb, peak] in dB.
std::pair<double, double> displayRange(const convlab::Image& r, bool logScale)
{
    const double peak = r.data.empty() ? 0.0 : double(*std::max_element(r.data.begin(), r.data.end()));
    if (logScale) return {peak - kLogRangeDb, peak};
    return {0.0, std::max(peak, 1e-30)};
}

QImage colourImage(const convlab::Image& r, bool logScale)
{
    const auto [lo, hi] = displayRange(r, logScale);
    QImage img(r.width, r.height, QImage::Format_RGB32);
    for (int y = 0; y < r.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(img.scanLine(y));
        // Row 0 of the response is the most negative wy: draw positive wy upwards.
        for (int x = 0; x < r.width; ++x)
            line[x] = colormap::viridis((r.at(0, r.height - 1 - y, x) - lo) / (hi - lo)).rgb();
    }
    return img;
}

} // namespace

struct AnalysisPanel::Result {
    convlab::KernelAnalysis analysis;
    convlab::Image response[2]; // linear, dB
    QImage image[2];
    std::optional<convlab::FilterDesign> design; // when the kernel is an unedited design
    convlab::Image ideal[2];                     // its ideal response, linear and dB
    convlab::DesignFit fit;
    QString error;
};

namespace {

// The fy = 0 row of a response on frequencyResponse's grid.
std::vector<double> centreRow(const convlab::Image& r)
{
    std::vector<double> row(static_cast<std::size_t>(r.width));
    for (int x = 0; x < r.width; ++x) row[x] = r.at(0, r.height / 2, x);
    return row;
}

QString designText(const convlab::FilterDesign& d, const convlab::DesignFit& fit)
{
    const auto frequency = [](double f) {
        return QObject::tr("%1 cycles/pixel (ω = %2π)").arg(num(f), num(2 * f));
    };
    const QString edges = d.hasBand() ? QObject::tr("band %1 to %2").arg(frequency(d.f1), frequency(d.f2))
                                      : QObject::tr("cut-off %1").arg(frequency(d.f1));
    QString window = QString::fromStdString(convlab::designWindowNames()[static_cast<std::size_t>(d.window)]);
    if (d.window == convlab::DesignWindow::Kaiser) window += QObject::tr(" (β = %1)").arg(num(d.beta));
    const QString what = QObject::tr("<b>%1</b>, %2, %3×%3, %4 window, %5.")
                             .arg(QString::fromStdString(convlab::filterBandNames()[static_cast<std::size_t>(d.band)]),
                                  edges)
                             .arg(d.size)
                             .arg(window, QString::fromStdString(
                                              convlab::designShapeNames()[static_cast<std::size_t>(d.shape)]));
    const auto db = [](double g) { return g > 0 ? QObject::tr(" (%1 dB)").arg(num(20 * std::log10(g))) : QString(); };
    const QString pass = fit.passSamples ? QObject::tr("pass band within %1 of 1").arg(num(fit.passDeviation))
                                         : QObject::tr("no pass band outside it");
    const QString stop = fit.stopSamples ? QObject::tr("stop band at most %1%2").arg(num(fit.stopGain), db(fit.stopGain))
                                         : QObject::tr("no stop band outside it");
    return what + ' ' +
           QObject::tr("Outside the transition band (%1 cycles/pixel wide at each edge): %2, %3. "
                       "Dashed: the ideal response.")
               .arg(num(fit.transition), pass, stop);
}

} // namespace

// The colour-mapped response, square, with the frequency axes labelled and a colour bar with
// the values of the map on its right.
class ResponseImageView : public QWidget {
public:
    explicit ResponseImageView(QWidget* parent = nullptr) : QWidget(parent), bar_(new ColorBar(this))
    {
        setMinimumSize(170, 150); // narrow docks too: the map scales to the room it gets
        bar_->setObjectName(QStringLiteral("responseColorBar"));
        bar_->hide();
    }
    QSize sizeHint() const override { return {240, 200}; } // where the dock has the room
    // The image spans [lo, hi] (in `unit`) from the dark to the bright end of the map.
    void setImage(const QImage& img, const QString& caption, double lo, double hi, const QString& unit)
    {
        image_ = img;
        caption_ = caption;
        bar_->setScale(ColorBar::Map::Viridis, lo, hi, unit);
        bar_->setVisible(!img.isNull());
        placeBar();
        update();
    }
    // The ideal response's edges drawn over the image (none when `d` is empty).
    void setDesign(const std::optional<convlab::FilterDesign>& d)
    {
        design_ = d;
        update();
    }
    int heightForWidth(int w) const override { return w - barSpace() + fontMetrics().height() * 2; }
    bool hasHeightForWidth() const override { return true; }

protected:
    void resizeEvent(QResizeEvent*) override { placeBar(); }

    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        const QFontMetrics fm = fontMetrics();
        const int margin = labelMargin();
        const QRect r = imageRect();
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(0, 0, width(), fm.height()), Qt::AlignCenter, caption_);
        if (image_.isNull()) return;
        p.drawImage(r, image_);
        p.drawRect(r.adjusted(0, 0, -1, -1));
        const QColor cross(255, 255, 255, 90);
        p.setPen(QPen(cross, 1, Qt::DashLine));
        p.drawLine(r.left(), r.center().y(), r.right(), r.center().y());
        p.drawLine(r.center().x(), r.top(), r.center().x(), r.bottom());
        drawIdealEdges(p, r);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(r.left() - margin, r.bottom() + 2, 2 * margin, fm.height()), Qt::AlignCenter, tr("−π"));
        p.drawText(QRect(r.right() - margin, r.bottom() + 2, 2 * margin, fm.height()), Qt::AlignCenter, tr("π"));
        p.drawText(QRect(r.left(), r.bottom() + 2, r.width(), fm.height()), Qt::AlignCenter, tr("ωx"));
        p.drawText(QRect(0, r.top(), margin - 2, fm.height()), Qt::AlignRight | Qt::AlignVCenter, tr("π"));
        p.drawText(QRect(0, r.bottom() - fm.height(), margin - 2, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   tr("−π"));
        p.drawText(QRect(0, r.center().y() - fm.height() / 2, margin - 2, fm.height()),
                   Qt::AlignRight | Qt::AlignVCenter, tr("ωy"));
    }

private:
    // Circles (radial) or squares (separable) at the design's edges, around the centre of the
    // zero-frequency sample: a frequency f cycles/pixel lies f times the image side from it.
    void drawIdealEdges(QPainter& p, const QRect& r) const
    {
        if (!design_ || image_.isNull()) return;
        const int n = image_.width();
        const double px = double(r.width()) / n;
        // DC is column n/2, and row n/2 of the response drawn as row n - 1 - n/2.
        const QPointF dc(r.left() + (n / 2 + 0.5) * px, r.top() + (n - 1 - n / 2 + 0.5) * px);
        std::vector<double> edges{design_->f1};
        if (design_->hasBand()) edges.push_back(design_->f2);
        p.save();
        p.setClipRect(r);
        p.setRenderHint(QPainter::Antialiasing);
        p.setBrush(Qt::NoBrush);
        for (double f : edges) {
            const double half = f * r.width();
            const QRectF shape(dc.x() - half, dc.y() - half, 2 * half, 2 * half);
            for (const QPen& pen : {QPen(QColor(0, 0, 0, 140), 3), QPen(Qt::white, 1.5, Qt::DashLine)}) {
                p.setPen(pen);
                if (design_->shape == convlab::DesignShape::Radial)
                    p.drawEllipse(shape);
                else
                    p.drawRect(shape);
            }
        }
        p.restore();
    }
    int labelMargin() const { return fontMetrics().horizontalAdvance(QStringLiteral("−π ")) + 4; }
    int barSpace() const { return bar_->sizeHint().width() + 6; }
    // The square of the image: the ωy labels on its left, the colour bar on its right.
    QRect imageRect() const
    {
        const QFontMetrics fm = fontMetrics();
        const int margin = labelMargin();
        const int side = std::max(8, std::min(width() - 2 * margin - barSpace(), height() - 2 * fm.height() - 8));
        return QRect((width() - barSpace() - side) / 2, fm.height() + 4, side, side);
    }
    void placeBar()
    {
        const QRect r = imageRect();
        const int half = fontMetrics().height() / 2 + 4; // the bar's end labels stand past its strip
        bar_->setGeometry(r.right() + 6, r.top() - half, bar_->sizeHint().width(), r.height() + 2 * half);
    }

    QImage image_;
    QString caption_;
    ColorBar* bar_;
    std::optional<convlab::FilterDesign> design_;
};

// |H(ωx, 0)| as a line chart.
class ResponsePlot : public QWidget {
public:
    explicit ResponsePlot(QWidget* parent = nullptr) : QWidget(parent) { setMinimumHeight(140); }
    void setData(std::vector<double> values, double lo, double hi, const QString& unit)
    {
        values_ = std::move(values);
        lo_ = lo;
        hi_ = hi;
        unit_ = unit;
        update();
    }
    const std::vector<double>& values() const { return values_; }
    // A second curve, dashed: the ideal response on the same samples (empty: none).
    void setIdeal(std::vector<double> ideal)
    {
        ideal_ = std::move(ideal);
        update();
    }
    const std::vector<double>& ideal() const { return ideal_; }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QFontMetrics fm = fontMetrics();
        const QString loText = num(lo_), hiText = num(hi_);
        const int left = std::max(fm.horizontalAdvance(loText), fm.horizontalAdvance(hiText)) + 8;
        const QRect r(left, fm.height() + 4, std::max(8, width() - left - 12), std::max(8, height() - 2 * fm.height() - 10));
        const QColor text = palette().color(QPalette::WindowText);
        p.setPen(text);
        const QString title = ideal_.empty() ? tr("cross-section at ωy = 0 (%1)").arg(unit_)
                                             : tr("cross-section at ωy = 0 (%1; dashed: ideal)").arg(unit_);
        p.drawText(QRect(0, 0, width(), fm.height()), Qt::AlignCenter, title);
        p.drawRect(r);
        p.drawText(QRect(0, r.top() - fm.height() / 2, left - 4, fm.height()), Qt::AlignRight | Qt::AlignVCenter, hiText);
        p.drawText(QRect(0, r.bottom() - fm.height() / 2, left - 4, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                   loText);
        const QString ticks[] = {tr("−π"), tr("−π/2"), tr("0"), tr("π/2"), tr("π")};
        QColor grid = text;
        grid.setAlpha(60);
        for (int i = 0; i < 5; ++i) {
            const int x = r.left() + r.width() * i / 4;
            p.setPen(QPen(grid, 1, Qt::DotLine));
            p.drawLine(x, r.top(), x, r.bottom());
            p.setPen(text);
            p.drawText(QRect(x - 30, r.bottom() + 2, 60, fm.height()), Qt::AlignCenter, ticks[i]);
        }
        if (values_.size() < 2 || !(hi_ > lo_)) return;
        p.setPen(QPen(palette().color(QPalette::Highlight), 2));
        p.drawPath(curve(values_, r));
        if (ideal_.size() == values_.size()) {
            p.setPen(QPen(QColor(230, 120, 20), 1.5, Qt::DashLine));
            p.drawPath(curve(ideal_, r));
        }
    }

private:
    // Sample i sits at ωx = 2π (i - n/2) / n; the last one just short of +π.
    QPainterPath curve(const std::vector<double>& v, const QRect& r) const
    {
        const double n = double(v.size());
        QPainterPath path;
        for (std::size_t i = 0; i < v.size(); ++i) {
            const double fx = (double(i) - n / 2) / (n / 2); // -1 .. 1 for -π .. π
            const double t = std::clamp((v[i] - lo_) / (hi_ - lo_), 0.0, 1.0);
            const QPointF pt(r.left() + (fx + 1) / 2 * r.width(), r.bottom() - t * r.height());
            if (i == 0)
                path.moveTo(pt);
            else
                path.lineTo(pt);
        }
        return path;
    }

    std::vector<double> values_;
    std::vector<double> ideal_;
    double lo_ = 0, hi_ = 1;
    QString unit_;
};

AnalysisPanel::AnalysisPanel(QWidget* parent) : QWidget(parent)
{
    pool_.setMaxThreadCount(1);
    sum_ = new QLabel;
    zeroSum_ = new QLabel;
    symmetry_ = new QLabel;
    rank_ = new QLabel;
    factors_ = new QLabel;
    class_ = new QLabel;
    design_ = new QLabel;
    error_ = new QLabel;
    for (QLabel* l : {sum_, zeroSum_, symmetry_, rank_, factors_, class_, design_, error_}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    sum_->setObjectName("sum");
    zeroSum_->setObjectName("zeroSum");
    symmetry_->setObjectName("symmetry");
    rank_->setObjectName("rank");
    factors_->setObjectName("factors");
    class_->setObjectName("class");
    design_->setObjectName("design");
    error_->hide();
    // A check box's text does not wrap: short, the rest in its tooltip, so it never widens the dock.
    log_ = new QCheckBox(tr("Log scale (dB)"));
    log_->setToolTip(tr("Decibels, down to %1 dB below the peak").arg(kLogRangeDb));
    image_ = new ResponseImageView;
    image_->setToolTip(tr("|H(ωx, ωy)|: zero frequency in the centre, the highest (π) at the edges"));
    plot_ = new ResponsePlot;
    image_->setObjectName("responseImage");
    plot_->setObjectName("responsePlot");

    auto* form = new QFormLayout;
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->addRow(tr("Sum (DC gain)"), sum_);
    form->addRow(tr("Zero-sum"), zeroSum_);
    form->addRow(tr("Symmetry"), symmetry_);
    form->addRow(tr("SVD rank"), rank_);
    form->addRow(tr("Separable"), factors_);
    form->addRow(tr("Class"), class_);
    form->addRow(tr("Design"), design_);
    form->setRowVisible(design_, false);
    form_ = form;

    auto* content = new QWidget;
    auto* inner = new QVBoxLayout(content);
    inner->addLayout(form);
    inner->addWidget(error_);
    inner->addWidget(log_);
    inner->addWidget(image_);
    inner->addWidget(plot_);
    inner->addStretch(1);
    auto* scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(scroll);

    connect(log_, &QCheckBox::toggled, this, [this] { showResponse(); });
}

AnalysisPanel::~AnalysisPanel()
{
    pool_.clear();
    pool_.waitForDone();
}

const convlab::KernelAnalysis& AnalysisPanel::analysis() const { return result_->analysis; }

const std::optional<convlab::FilterDesign>& AnalysisPanel::design() const
{
    static const std::optional<convlab::FilterDesign> none;
    return result_ ? result_->design : none;
}

std::vector<double> AnalysisPanel::idealCrossSection() const { return plot_->ideal(); }

std::vector<double> AnalysisPanel::crossSection() const { return plot_->values(); }

bool AnalysisPanel::logScale() const { return log_->isChecked(); }

void AnalysisPanel::setLogScale(bool on) { log_->setChecked(on); }

QImage AnalysisPanel::responseImage() const { return result_ ? result_->image[logScale() ? 1 : 0] : QImage(); }

QString AnalysisPanel::fieldText(const QString& field) const
{
    const QLabel* l = findChild<QLabel*>(field);
    return l ? l->text() : QString();
}

void AnalysisPanel::attach(WorkbenchDocument* doc, ImageView*)
{
    connect(doc, &WorkbenchDocument::paramsChanged, this, [this, doc] { setKernel(doc->params().kernel); });
    setKernel(doc->params().kernel);
}

void AnalysisPanel::setKernel(const convlab::Kernel& k)
{
    const quint64 id = latest_.begin().id;
    pool_.clear(); // an analysis not yet started is no longer wanted
    pool_.start([this, id, k] {
        auto r = std::make_shared<Result>();
        try {
            r->analysis = convlab::analyzeKernel(k);
            for (int i = 0; i < 2; ++i) {
                r->response[i] = convlab::frequencyResponse(k, kResponseSize, i == 1);
                r->image[i] = colourImage(r->response[i], i == 1);
            }
            r->design = convlab::designOf(k);
            if (r->design) {
                for (int i = 0; i < 2; ++i) r->ideal[i] = convlab::idealResponse(*r->design, kResponseSize, i == 1);
                r->fit = convlab::measureDesign(*r->design, r->response[0]);
            }
        } catch (const convlab::Error& e) {
            r->error = QString::fromUtf8(e.what());
        } catch (const std::bad_alloc&) {
            r->error = tr("out of memory");
        }
        // The destructor waits for this task, so the panel is alive while the call is queued.
        QMetaObject::invokeMethod(this, [this, id, r] {
            if (latest_.finish(id)) show(r);
        }, Qt::QueuedConnection);
    });
}

void AnalysisPanel::show(std::shared_ptr<const Result> r)
{
    if (!r->error.isEmpty()) {
        error_->setText(tr("Cannot analyse the kernel: %1").arg(r->error));
        error_->show();
        emit updated();
        return;
    }
    error_->hide();
    result_ = std::move(r);
    const convlab::KernelAnalysis& a = result_->analysis;
    sum_->setText(tr("ΣK = %1   (Σ|K| = %2)").arg(num(a.sum), num(a.absSum)));
    zeroSum_->setText(a.zeroSum ? tr("yes: flat regions become 0 (an edge or detail detector)")
                                : tr("no: a flat region is multiplied by %1").arg(num(a.sum)));
    auto axis = [](bool even, bool odd) {
        return even && odd ? tr("even and odd (zero)") : even ? tr("even") : odd ? tr("odd") : tr("neither");
    };
    symmetry_->setText(tr("in x: %1;  in y: %2").arg(axis(a.evenX, a.oddX), axis(a.evenY, a.oddY)));
    rank_->setText(tr("%1   σ = %2").arg(a.rank).arg(list(a.singularValues)));
    if (a.rank == 1)
        factors_->setText(tr("yes: column [%1] × row [%2]").arg(list(a.column), list(a.row)));
    else if (a.rank == 0)
        factors_->setText(tr("the kernel is zero"));
    else
        factors_->setText(tr("not as one pair: %1 column × row pairs add up to it").arg(a.rank));
    // The reason usually starts with the class name ("low-pass: DC gain ..."): bold that part.
    const QString name = QString::fromStdString(convlab::filterClassName(a.filterClass));
    QString reason = QString::fromStdString(a.classReason);
    if (reason.startsWith(name + ':')) reason = reason.mid(name.size() + 1).trimmed();
    class_->setText(QStringLiteral("<b>%1</b>: %2").arg(name, reason.toHtmlEscaped()));
    design_->setText(result_->design ? designText(*result_->design, result_->fit) : QString());
    form_->setRowVisible(design_, result_->design.has_value());
    showResponse();
    emit updated();
}

void AnalysisPanel::showResponse()
{
    if (!result_) return;
    const int i = logScale() ? 1 : 0;
    const convlab::Image& r = result_->response[i];
    const auto [lo, hi] = displayRange(r, i == 1);
    const QString unit = i == 1 ? tr("dB") : tr("|H|");
    image_->setImage(result_->image[i],
                     tr("|H(ωx, ωy)|, %1 to %2 %3").arg(num(lo), num(hi), i == 1 ? tr("dB") : QString()), lo, hi,
                     i == 1 ? tr("dB") : QString());
    image_->setDesign(result_->design);
    plot_->setData(centreRow(r), lo, hi, unit);
    plot_->setIdeal(result_->design ? centreRow(result_->ideal[i]) : std::vector<double>());
}
