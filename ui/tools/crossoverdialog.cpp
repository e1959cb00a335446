// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/crossoverdialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QThread>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <random>

#include "convlab/error.h"
#include "convlab/imagestats.h"
#include "convlab/modes.h"

namespace {

// Every point is the best of two runs (the first may include one-time work such as FFT
// plans), of three when the runs are short.
constexpr int kRepeats = 3;
constexpr double kShortRunMs = 50.0;

static_assert(CrossoverDialog::kAutoColumn == int(std::size(CrossoverDialog::kMethods)),
              "the auto column follows one column per timed method");

// One colour per timed method, by its column; grey for the others (never timed by the sweep).
QColor methodColour(convlab::Method m)
{
    static const QColor palette[] = {QColor(31, 119, 180), QColor(44, 160, 44),  QColor(255, 127, 14),
                                     QColor(214, 39, 40),  QColor(148, 103, 189), QColor(140, 86, 75)};
    const int column = CrossoverDialog::methodColumn(m);
    return column >= 0 && column < int(std::size(palette)) ? palette[column] : QColor(127, 127, 127);
}

// Background of an "auto chose" cell where auto did not pick the fastest method.
const QColor kMismatchColour(255, 205, 160);

QString methodText(convlab::Method m) { return QString::fromStdString(convlab::methodName(m)); }

// A dense (full-rank) kernel: uniform random values, the same for a given size every time.
convlab::Kernel randomKernel(int size)
{
    std::mt19937 rng(static_cast<std::uint32_t>(size));
    std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
    std::vector<float> v(static_cast<std::size_t>(size) * size);
    for (float& x : v) x = uni(rng);
    convlab::Kernel k(size, size, std::move(v));
    k.name = "random";
    return k;
}

} // namespace

// Time against kernel size: one line per method on a log time axis, auto's pick ringed and the
// fastest measured method at each size framed by a square.
class CrossoverChart : public QWidget {
public:
    explicit CrossoverChart(QWidget* parent = nullptr) : QWidget(parent) { setMinimumSize(420, 260); }
    void setData(const std::vector<int>& sizes, const std::vector<CrossoverPoint>& points,
                 const std::map<int, convlab::Method>& autoChoice)
    {
        sizes_ = sizes;
        points_ = points;
        auto_ = autoChoice;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        p.fillRect(rect(), palette().color(QPalette::Base));
        const QFontMetrics fm = fontMetrics();
        const QColor text = palette().color(QPalette::Text);
        const QRect r(fm.horizontalAdvance(QStringLiteral("10000 ms")) + 10, fm.height() + 8,
                      std::max(10, width() - fm.horizontalAdvance(QStringLiteral("10000 ms")) - 24),
                      std::max(10, height() - 3 * fm.height() - 14));
        p.setPen(text);
        p.drawRect(r);
        p.drawText(QRect(r.left(), r.bottom() + fm.height() + 4, r.width(), fm.height()), Qt::AlignCenter,
                   tr("kernel side (square, dense random)"));
        if (sizes_.empty()) return;

        double lo = INFINITY, hi = -INFINITY;
        for (const CrossoverPoint& pt : points_)
            if (!pt.skipped && pt.ms > 0) {
                lo = std::min(lo, std::log10(pt.ms));
                hi = std::max(hi, std::log10(pt.ms));
            }
        if (!(lo <= hi)) lo = -1, hi = 2;
        lo = std::floor(lo);
        hi = std::max(std::ceil(hi), lo + 1);
        const int minSize = sizes_.front(), maxSize = std::max(sizes_.back(), minSize + 1);
        auto px = [&](int size) { return r.left() + double(size - minSize) / (maxSize - minSize) * r.width(); };
        auto py = [&](double ms) { return r.bottom() - (std::log10(ms) - lo) / (hi - lo) * r.height(); };

        QColor grid = text;
        grid.setAlpha(50);
        for (int e = int(lo); e <= int(hi); ++e) {
            const double y = py(std::pow(10.0, e));
            p.setPen(QPen(grid, 1, Qt::DotLine));
            p.drawLine(QPointF(r.left(), y), QPointF(r.right(), y));
            p.setPen(text);
            p.drawText(QRectF(0, y - fm.height() / 2.0, r.left() - 6, fm.height()), Qt::AlignRight | Qt::AlignVCenter,
                       QStringLiteral("%1 ms").arg(QString::number(std::pow(10.0, e), 'g', 6)));
        }
        for (int s : sizes_) {
            const double x = px(s);
            p.setPen(QPen(grid, 1, Qt::DotLine));
            p.drawLine(QPointF(x, r.top()), QPointF(x, r.bottom()));
            p.setPen(text);
            p.drawText(QRectF(x - 20, r.bottom() + 2, 40, fm.height()), Qt::AlignCenter, QString::number(s));
        }
        for (convlab::Method m : CrossoverDialog::kMethods) {
            QPainterPath path;
            bool open = false;
            p.setPen(QPen(methodColour(m), 2));
            for (const CrossoverPoint& pt : points_) {
                if (pt.method != m) continue;
                if (pt.skipped) {
                    open = false;
                    continue;
                }
                const QPointF at(px(pt.size), py(pt.ms));
                if (open)
                    path.lineTo(at);
                else
                    path.moveTo(at);
                open = true;
                p.setBrush(methodColour(m));
                p.drawEllipse(at, 3, 3);
                if (auto a = auto_.find(pt.size); a != auto_.end() && a->second == m) {
                    p.save();
                    p.setBrush(Qt::NoBrush);
                    p.setPen(QPen(text, 2));
                    p.drawEllipse(at, 8, 8);
                    p.restore();
                }
                if (CrossoverDialog::fastestOf(points_, pt.size) == m) drawFastestMarker(p, at);
            }
            p.setBrush(Qt::NoBrush);
            p.drawPath(path);
        }
        // Legend.
        int y = 2, x = r.left();
        for (convlab::Method m : CrossoverDialog::kMethods) {
            p.setPen(QPen(methodColour(m), 3));
            p.drawLine(x, y + fm.height() / 2, x + 18, y + fm.height() / 2);
            p.setPen(text);
            p.drawText(x + 22, y + fm.ascent(), methodText(m));
            x += 30 + fm.horizontalAdvance(methodText(m));
        }
        p.setPen(QPen(text, 2));
        p.drawEllipse(QPointF(x + 8, y + fm.height() / 2.0), 6, 6);
        p.drawText(x + 20, y + fm.ascent(), tr("auto's choice"));
        x += 32 + fm.horizontalAdvance(tr("auto's choice"));
        drawFastestMarker(p, QPointF(x + 8, y + fm.height() / 2.0));
        p.setPen(text);
        p.drawText(x + 22, y + fm.ascent(), tr("fastest measured"));
    }

    // A square frame, so that it reads apart from auto's ring when both mark one point.
    void drawFastestMarker(QPainter& p, QPointF at) const
    {
        p.save();
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(QColor(214, 39, 40), 2));
        p.drawRect(QRectF(at.x() - 6, at.y() - 6, 12, 12));
        p.restore();
    }

private:
    std::vector<int> sizes_;
    std::vector<CrossoverPoint> points_;
    std::map<int, convlab::Method> auto_;
};

CrossoverDialog::CrossoverDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Method Crossover — ConvLab"));
    info_ = new QLabel(tr("Open an image first."));
    info_->setWordWrap(true);
    chart_ = new CrossoverChart;
    QStringList headers;
    for (convlab::Method m : kMethods) headers << tr("%1 ms").arg(methodText(m));
    headers << tr("auto chose");
    table_ = new QTableWidget(0, int(headers.size()));
    table_->setHorizontalHeaderLabels(headers);
    table_->horizontalHeaderItem(kAutoColumn)
        ->setToolTip(tr("The method auto picked; where another method measured faster it is named, on orange"));
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setMaximumHeight(220);
    progress_ = new QProgressBar;
    status_ = new QLabel;
    status_->setWordWrap(true);
    run_ = new QPushButton(tr("&Run"));
    stop_ = new QPushButton(tr("&Cancel"));
    stop_->setEnabled(false);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    buttons->addButton(run_, QDialogButtonBox::ActionRole);
    buttons->addButton(stop_, QDialogButtonBox::ActionRole);
    connect(run_, &QPushButton::clicked, this, &CrossoverDialog::start);
    connect(stop_, &QPushButton::clicked, this, &CrossoverDialog::cancel);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(info_);
    layout->addWidget(chart_, 1);
    layout->addWidget(table_);
    layout->addWidget(status_);
    auto* bottom = new QHBoxLayout;
    bottom->addWidget(progress_, 1);
    bottom->addWidget(buttons);
    layout->addLayout(bottom);
    resize(760, 720);
}

CrossoverDialog::~CrossoverDialog()
{
    cancel_ = true;
    if (thread_) thread_->wait();
}

void CrossoverDialog::setInput(std::shared_ptr<const convlab::Image> image, const convlab::ConvolveParams& params)
{
    image_ = std::move(image);
    params_ = params;
    params_.cancel = nullptr;
    if (running()) return;
    if (!image_) {
        info_->setText(tr("Open an image first."));
        return;
    }
    const double px = double(image_->width) * image_->height;
    QString size = tr("%1×%2×%3").arg(image_->width).arg(image_->height).arg(image_->channels);
    if (px > kMaxPixels) size += tr(" (box-downscaled to about a megapixel)");
    QString timed; // "direct, separable and fft"
    for (std::size_t i = 0; i < std::size(kMethods); ++i)
        timed += (i == 0 ? QString() : i + 1 < std::size(kMethods) ? QStringLiteral(", ") : tr(" and ")) +
                 methodText(kMethods[i]);
    info_->setText(tr("Times %1 on the CPU for dense random square kernels of side %2, "
                      "on the current image %3 with border %4, %5 threads; each time is the best of two or three runs. "
                      "Auto runs too: its pick is ringed; the fastest measured method is framed by a red square "
                      "and bold in the table.")
                       .arg(timed, QString::number(sizes_.front()) + "…" + QString::number(sizes_.back()), size,
                            QString::fromStdString(convlab::borderName(params_.border.mode)),
                            params_.threads > 0 ? QString::number(params_.threads) : tr("all")));
}

void CrossoverDialog::setSizes(std::vector<int> sizes)
{
    if (running() || sizes.empty()) return;
    std::sort(sizes.begin(), sizes.end());
    sizes_ = std::move(sizes);
    setInput(image_, params_);
}

convlab::Method CrossoverDialog::autoChoice(int size) const
{
    const auto it = auto_.find(size);
    return it == auto_.end() ? convlab::Method::Auto : it->second;
}

int CrossoverDialog::methodColumn(convlab::Method m)
{
    const auto it = std::find(std::begin(kMethods), std::end(kMethods), m);
    return it == std::end(kMethods) ? -1 : int(it - std::begin(kMethods));
}

convlab::Method CrossoverDialog::fastestOf(const std::vector<CrossoverPoint>& points, int size)
{
    convlab::Method best = convlab::Method::Auto;
    double bestMs = INFINITY;
    for (const CrossoverPoint& p : points)
        if (p.size == size && !p.skipped && p.ms > 0.0 && p.ms < bestMs) {
            bestMs = p.ms;
            best = p.method;
        }
    return best;
}

convlab::Method CrossoverDialog::fastest(int size) const { return fastestOf(points_, size); }

std::vector<int> CrossoverDialog::mismatches() const
{
    std::vector<int> out;
    for (int size : sizes_) {
        const convlab::Method chosen = autoChoice(size), best = fastest(size);
        if (chosen != convlab::Method::Auto && best != convlab::Method::Auto && chosen != best) out.push_back(size);
    }
    return out;
}

QString CrossoverDialog::mismatchSummary() const
{
    const std::vector<int> sizes = mismatches();
    if (sizes.empty()) return tr("Auto picked the fastest method at every size.");
    QStringList names;
    for (int s : sizes)
        names << tr("%1×%1 (auto %2, fastest %3)").arg(s).arg(methodText(autoChoice(s)), methodText(fastest(s)));
    return (sizes.size() == 1 ? tr("Auto did not pick the fastest method at one size: %1.")
                              : tr("Auto did not pick the fastest method at %1 sizes: %2.").arg(sizes.size()))
        .arg(names.join(", "));
}

QString CrossoverDialog::statusText() const { return status_->text(); }

void CrossoverDialog::showSweep(std::vector<int> sizes, std::vector<CrossoverPoint> points,
                                std::map<int, convlab::Method> autoChoices)
{
    if (running() || sizes.empty()) return;
    std::sort(sizes.begin(), sizes.end());
    sizes_ = std::move(sizes);
    points_ = std::move(points);
    auto_ = std::move(autoChoices);
    setInput(image_, params_); // the description names the sizes
    updateTable();
    status_->setText(mismatchSummary());
}

void CrossoverDialog::start()
{
    if (running()) return;
    if (!image_) {
        status_->setText(tr("Open an image first."));
        return;
    }
    points_.clear();
    auto_.clear();
    updateTable();
    cancel_ = false;
    // Per size: auto's run, then each timed method.
    progress_->setRange(0, int(sizes_.size()) * (int(std::size(kMethods)) + 1));
    progress_->setValue(0);
    status_->setText(tr("Running…"));
    run_->setEnabled(false);
    stop_->setEnabled(true);

    thread_.reset(QThread::create([this, image = image_, base = params_, sizes = sizes_] {
        auto post = [this](auto f) { QMetaObject::invokeMethod(this, std::move(f), Qt::QueuedConnection); };
        try {
            const convlab::Image in = convlab::downscaleByArea(*image, kMaxPixels);
            convlab::ConvolveParams p = base;
            p.device = convlab::Device::Cpu;
            p.normalize = false;
            p.scale = 1.0;
            p.offset = 0.0;
            p.cancel = &cancel_;
            convlab::Image out;
            convlab::RunReport report;
            for (int size : sizes) {
                p.kernel = randomKernel(size);
                p.method = convlab::Method::Auto;
                convolveInto(in, p, out, &report);
                const std::vector<convlab::MethodEstimate> estimates = report.estimates;
                post([this, size, m = report.method] { setAutoChoice(size, m); });
                for (convlab::Method m : kMethods) {
                    CrossoverPoint pt;
                    pt.size = size;
                    pt.method = m;
                    for (const convlab::MethodEstimate& e : estimates)
                        if (e.method == m) pt.estimateMs = e.ms;
                    pt.skipped = pt.estimateMs > kMaxRunMs;
                    if (!pt.skipped) {
                        p.method = m;
                        pt.ms = INFINITY;
                        for (int i = 0; i < kRepeats && (i < 2 || pt.ms < kShortRunMs); ++i) {
                            convolveInto(in, p, out, &report);
                            pt.ms = std::min(pt.ms, report.totalMs);
                        }
                    }
                    post([this, pt] { addPoint(pt); });
                }
            }
            post([this] { done(true, QString()); });
        } catch (const convlab::Cancelled&) {
            post([this] { done(false, tr("Cancelled.")); });
        } catch (const convlab::Error& e) {
            post([this, m = QString::fromUtf8(e.what())] { done(false, tr("The sweep failed: %1").arg(m)); });
        } catch (const std::bad_alloc&) {
            post([this] { done(false, tr("The sweep failed: out of memory")); });
        }
    }));
    thread_->start();
}

void CrossoverDialog::cancel()
{
    if (!running()) return;
    cancel_ = true;
    status_->setText(tr("Cancelling…"));
}

void CrossoverDialog::hideEvent(QHideEvent* e)
{
    cancel();
    QDialog::hideEvent(e);
}

void CrossoverDialog::setAutoChoice(int size, convlab::Method m)
{
    auto_[size] = m;
    progress_->setValue(progress_->value() + 1);
    updateTable();
}

void CrossoverDialog::addPoint(const CrossoverPoint& p)
{
    points_.push_back(p);
    progress_->setValue(progress_->value() + 1);
    updateTable();
}

void CrossoverDialog::done(bool completed, const QString& message)
{
    thread_->wait();
    thread_.reset();
    setInput(image_, params_); // the input may have changed during the run
    run_->setEnabled(true);
    stop_->setEnabled(false);
    if (completed) {
        int skipped = 0;
        for (const CrossoverPoint& p : points_) skipped += p.skipped;
        status_->setText((skipped ? tr("Done. %1 runs were skipped: the planner expected each to take over %2 s.")
                                        .arg(skipped)
                                        .arg(kMaxRunMs / 1000)
                                  : tr("Done.")) +
                         ' ' + mismatchSummary());
    } else {
        status_->setText(message);
    }
    emit finished(completed);
}

void CrossoverDialog::updateTable()
{
    chart_->setData(sizes_, points_, auto_);
    table_->setRowCount(int(sizes_.size()));
    QStringList rows;
    for (int s : sizes_) rows << QStringLiteral("%1×%1").arg(s);
    table_->setVerticalHeaderLabels(rows);
    table_->clearContents();
    QFont bold = font();
    bold.setBold(true);
    for (int row = 0; row < int(sizes_.size()); ++row) {
        const int size = sizes_[row];
        const convlab::Method chosen = autoChoice(size);
        const convlab::Method best = fastest(size);
        for (const CrossoverPoint& p : points_) {
            if (p.size != size) continue;
            const int col = methodColumn(p.method);
            if (col < 0) continue;
            auto* item = new QTableWidgetItem(p.skipped ? tr("skipped (est. %1 s)").arg(p.estimateMs / 1000, 0, 'f', 1)
                                                        : QString::number(p.ms, 'f', 2));
            QString tip = tr("planner estimate %1 ms").arg(p.estimateMs, 0, 'f', 2);
            if (p.method == best) {
                item->setFont(bold);
                tip += tr("; fastest measured");
            }
            if (p.method == chosen) tip += tr("; auto's choice");
            item->setToolTip(tip);
            table_->setItem(row, col, item);
        }
        if (chosen == convlab::Method::Auto) continue;
        auto* pick = new QTableWidgetItem(methodText(chosen));
        if (best != convlab::Method::Auto && best != chosen) {
            pick->setText(tr("%1 (fastest: %2)").arg(methodText(chosen), methodText(best)));
            pick->setBackground(kMismatchColour);
            pick->setForeground(QColor(Qt::black));
            double chosenMs = 0.0, bestMs = 0.0;
            for (const CrossoverPoint& p : points_)
                if (p.size == size && !p.skipped) {
                    if (p.method == chosen) chosenMs = p.ms;
                    if (p.method == best) bestMs = p.ms;
                }
            pick->setToolTip(chosenMs > 0.0 ? tr("auto chose %1 (%2 ms); %3 measured %4 ms, %5× faster")
                                                  .arg(methodText(chosen), QString::number(chosenMs, 'f', 2),
                                                       methodText(best), QString::number(bestMs, 'f', 2),
                                                       QString::number(chosenMs / bestMs, 'f', 1))
                                            : tr("auto chose %1, which was not timed; %2 measured fastest")
                                                  .arg(methodText(chosen), methodText(best)));
        } else if (best == chosen) {
            pick->setToolTip(tr("auto chose the fastest measured method"));
        }
        table_->setItem(row, kAutoColumn, pick);
    }
}
