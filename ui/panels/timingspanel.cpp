// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/timingspanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "workbench/workbenchdocument.h"
#include <QHash>
#include <cmath>

namespace {
constexpr std::size_t kHistory = 20;
// Runs kept to find the last kHistory of one kind among them while the user switches between
// kernels (undo and redo, say).
constexpr std::size_t kHistoryKept = 200;
constexpr double kGapFactor = 2.0;
constexpr int kBarHeight = 16;

QString stageLabel(const convlab::StageTiming& s)
{
    return QString::fromStdString(s.name);
}
} // namespace

QString formatDuration(double ms)
{
    const double a = std::abs(ms);
    auto digits = [](double v) { return v >= 100 ? 0 : v >= 10 ? 1 : 2; };
    if (a < 1.0) {
        const double us = ms * 1e3;
        return QString::number(us, 'f', digits(std::abs(us))) + QStringLiteral(" µs");
    }
    if (a < 1000.0) return QString::number(ms, 'f', digits(a)) + QStringLiteral(" ms");
    const double s = ms / 1e3;
    return QString::number(s, 'f', digits(std::abs(s))) + QStringLiteral(" s");
}

double plannedEstimateMs(const convlab::RunReport& report)
{
    for (const convlab::MethodEstimate& e : report.estimates)
        if (e.method == report.method) return e.ms;
    return -1.0;
}

QString estimateGapExplanation(double measuredMs, double estimateMs)
{
    if (!(measuredMs > 0) || !(estimateMs > 0)) return {};
    const double ratio = measuredMs / estimateMs;
    // Two significant digits below ten ("2.3", "5"), whole numbers above ("85").
    auto times = [](double r) { return r < 10 ? QString::number(r, 'g', 2) : QString::number(qRound(r)); };
    if (ratio > kGapFactor)
        return QObject::tr("measured %1 is %2× the estimate %3: a first run allocates memory and fills the "
                           "caches, or the machine is busy with something else; two such runs in a row make "
                           "the planner correct its estimates.")
            .arg(formatDuration(measuredMs), times(ratio), formatDuration(estimateMs));
    if (ratio < 1.0 / kGapFactor)
        return QObject::tr("measured %1 is 1/%2 of the estimate %3: this machine runs this case faster than "
                           "the planner's model of it (the image fits in the caches, say); two such runs in a "
                           "row make the planner correct its estimates.")
            .arg(formatDuration(measuredMs), times(1.0 / ratio), formatDuration(estimateMs));
    return {};
}

RunSubject RunSubject::of(quint64 imageGeneration, const convlab::Kernel& kernel)
{
    const std::size_t values = qHashBits(kernel.values.data(), kernel.values.size() * sizeof(float));
    return {imageGeneration, qHashMulti(values, kernel.width, kernel.height, kernel.ax(), kernel.ay())};
}

StageChart::StageChart(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void StageChart::setStages(const std::vector<convlab::StageTiming>& stages)
{
    stages_ = stages;
    setFixedHeight(sizeHint().height()); // one bar per stage, all of them visible
    update();
}

QSize StageChart::sizeHint() const
{
    return {200, int(std::max<std::size_t>(stages_.size(), 1)) * (kBarHeight + 4) + 4};
}

void StageChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    double maxMs = 0.0;
    for (const auto& s : stages_) maxMs = std::max(maxMs, s.ms);
    const QFontMetrics fm = fontMetrics();
    int labelWidth = 0, valueWidth = 0;
    for (const auto& s : stages_) {
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(stageLabel(s)));
        valueWidth = std::max(valueWidth, fm.horizontalAdvance(formatDuration(s.ms)));
    }
    // Labels and values keep their full width; the bars take what is left.
    labelWidth = std::min(labelWidth, width() / 2);
    const int x0 = labelWidth + 8;
    const int barSpace = std::max(1, width() - x0 - valueWidth - 8);
    const QColor bar = palette().color(QPalette::Highlight);
    int y = 2;
    for (const auto& s : stages_) {
        const QRect text(0, y, labelWidth, kBarHeight);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(text, Qt::AlignRight | Qt::AlignVCenter, fm.elidedText(stageLabel(s), Qt::ElideMiddle, labelWidth));
        const int w = maxMs > 0 ? std::max(1, int(barSpace * s.ms / maxMs)) : 1;
        p.fillRect(QRect(x0, y + 2, w, kBarHeight - 4), s.once ? bar.lighter(150) : bar);
        p.drawText(QRect(x0 + w + 4, y, valueWidth + 4, kBarHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   formatDuration(s.ms));
        y += kBarHeight + 4;
    }
}

TimingsPanel::TimingsPanel(QWidget* parent) : QWidget(parent)
{
    table_ = new QTableWidget(0, 2);
    table_->setHorizontalHeaderLabels({tr("stage"), tr("time")});
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    chart_ = new StageChart;
    summary_ = new QLabel(tr("no run yet"));
    summary_->setToolTip(tr("The median counts only the runs alike: the same image, kernel, method and backend."));
    estimate_ = new QLabel;
    estimate_->setObjectName("estimateLabel");
    estimate_->setWordWrap(true);
    // Ignored: however long the explanation, the label takes the dock's width and wraps in it
    // rather than widening the dock; the tooltip holds the whole text.
    estimate_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    reason_ = new QPlainTextEdit;
    reason_->setReadOnly(true);
    reason_->setMaximumHeight(fontMetrics().lineSpacing() * 6);
    reason_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the dock
    reason_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    display_ = new QLabel;
    displayPath_ = new QLabel;
    // Lines of any length wrap within the dock (window/docklayout.h makes them take its width).
    for (QLabel* l : {summary_, display_, displayPath_}) l->setWordWrap(true);
    for (QLabel* l : {summary_, estimate_, display_, displayPath_})
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(estimate_);
    layout->addWidget(reason_);
    layout->addWidget(table_);
    layout->addWidget(chart_);
    layout->addWidget(display_);
    layout->addWidget(displayPath_);
    layout->addStretch(1);
}

void TimingsPanel::attach(WorkbenchDocument* doc, ImageView*)
{
    connect(doc, &WorkbenchDocument::resultChanged, this, [this, doc] {
        const WorkbenchDocument::Result& r = *doc->result();
        addRun(r.report, double(r.width) * r.height, RunSubject::of(r.generation.image, r.params.kernel));
    });
}

std::vector<double> TimingsPanel::matchingTimes() const
{
    std::vector<double> times;
    if (history_.empty()) return times;
    const Run& last = history_.back();
    for (auto it = history_.rbegin(); it != history_.rend() && times.size() < kHistory; ++it)
        if (it->subject == last.subject && it->method == last.method && it->device == last.device)
            times.push_back(it->perRunMs);
    return times;
}

double TimingsPanel::medianMs() const
{
    std::vector<double> v = matchingTimes();
    if (v.empty()) return 0.0;
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

int TimingsPanel::medianCount() const { return int(matchingTimes().size()); }

void TimingsPanel::showEstimate(const convlab::RunReport& report, double perRunMs)
{
    // The planner estimates the method's own time, so that is what it is held against.
    const double measured = report.computeMs > 0 ? report.computeMs : perRunMs;
    const double estimate = plannedEstimateMs(report);
    QString text = estimate > 0 ? tr("planner's estimate %1 · measured %2 (the method's own stages)")
                                      .arg(formatDuration(estimate), formatDuration(measured))
                                : tr("measured %1 (the method's own stages); no estimate: the planner "
                                     "estimates when the method is auto")
                                      .arg(formatDuration(measured));
    if (const QString gap = estimateGapExplanation(measured, estimate); !gap.isEmpty()) text += '\n' + gap;
    estimate_->setText(text);
    estimate_->setToolTip(text);
}

void TimingsPanel::addRun(const convlab::RunReport& report, double pixels, const RunSubject& subject)
{
    // The median tracks what a run costs from now on: one-time costs left out.
    const double perRun = convlab::perRunMs(report);
    history_.push_back({subject, report.method, report.device, perRun});
    if (history_.size() > kHistoryKept) history_.pop_front();

    std::vector<convlab::StageTiming> perRunStages, onceStages;
    for (const auto& s : report.stages) (s.once ? onceStages : perRunStages).push_back(s);
    table_->setRowCount(int(report.stages.size()) + 1);
    int row = 0;
    auto setRow = [&](const QString& name, double ms, bool emphasis) {
        auto* label = new QTableWidgetItem(name);
        auto* value = new QTableWidgetItem(formatDuration(ms));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        if (emphasis) {
            QFont f = label->font();
            f.setBold(true);
            label->setFont(f);
            value->setFont(f);
        }
        table_->setItem(row, 0, label);
        table_->setItem(row, 1, value);
        ++row;
    };
    for (const auto& s : perRunStages) setRow(stageLabel(s), s.ms, false);
    for (const auto& s : onceStages) setRow(tr("%1 — one-time").arg(stageLabel(s)), s.ms, false);
    setRow(tr("total"), report.totalMs, true);
    chart_->setStages(report.stages);
    // As tall as its rows, so the chart and the display time sit right below it.
    table_->setMaximumHeight(table_->horizontalHeader()->height() + 2 * table_->frameWidth() +
                             table_->verticalHeader()->length());

    const double computeMs = report.computeMs > 0 ? report.computeMs : perRun;
    const double mpxPerS = computeMs > 0 ? pixels / 1e6 / (computeMs / 1e3) : 0.0;
    QString summary = tr("total %1").arg(formatDuration(report.totalMs));
    if (!onceStages.empty())
        summary += tr(" (of which %1 one-time, not paid again)")
                       .arg(formatDuration(report.totalMs - perRun));
    summary += tr("\nmedian of last %1 alike: %2\n%3 Mpx/s (convolution stages) · %4 thread(s)")
                   .arg(medianCount())
                   .arg(formatDuration(medianMs()))
                   .arg(mpxPerS, 0, 'f', 1)
                   .arg(report.threads);
    summary_->setText(summary);
    QString reason = tr("%1 on %2: %3")
                         .arg(QString::fromStdString(convlab::methodName(report.method)),
                              QString::fromStdString(convlab::deviceName(report.device)),
                              QString::fromStdString(report.reason));
    if (report.rank >= 0) reason += tr(" · rank %1").arg(report.rank);
    if (!report.deviceReason.empty()) reason += tr("\ndevice auto: %1").arg(QString::fromStdString(report.deviceReason));
    for (const std::string& n : report.notices) reason += "\n" + QString::fromStdString(n);
    reason_->setPlainText(reason);
    showEstimate(report, perRun);
}

void TimingsPanel::setDisplayMs(double ms) { display_->setText(tr("display (upload + draw): %1").arg(formatDuration(ms))); }

void TimingsPanel::setDisplayPath(const QString& path) { displayPath_->setText(tr("display path: %1").arg(path)); }

QList<QPair<QString, QString>> TimingsPanel::rows() const
{
    QList<QPair<QString, QString>> out;
    for (int r = 0; r < table_->rowCount(); ++r)
        out.append({table_->item(r, 0)->text(), table_->item(r, 1)->text()});
    return out;
}

QString TimingsPanel::summaryText() const { return summary_->text(); }

QString TimingsPanel::displayText() const { return display_->text(); }

QString TimingsPanel::estimateText() const { return estimate_->text(); }
