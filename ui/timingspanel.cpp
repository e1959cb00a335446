// SPDX-License-Identifier: GPL-3.0-or-later
#include "timingspanel.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>

namespace {
constexpr std::size_t kHistory = 20;
constexpr int kBarHeight = 16;
} // namespace

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
    int labelWidth = 0;
    for (const auto& s : stages_) labelWidth = std::max(labelWidth, fm.horizontalAdvance(QString::fromStdString(s.name)));
    const int x0 = labelWidth + 8;
    const int barSpace = std::max(1, width() - x0 - 70);
    const QColor bar = palette().color(QPalette::Highlight);
    int y = 2;
    for (const auto& s : stages_) {
        const QRect text(0, y, labelWidth, kBarHeight);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(text, Qt::AlignRight | Qt::AlignVCenter, QString::fromStdString(s.name));
        const int w = maxMs > 0 ? std::max(1, int(barSpace * s.ms / maxMs)) : 1;
        p.fillRect(QRect(x0, y + 2, w, kBarHeight - 4), bar);
        p.drawText(QRect(x0 + w + 4, y, 66, kBarHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::number(s.ms, 'f', 2) + " ms");
        y += kBarHeight + 4;
    }
}

TimingsPanel::TimingsPanel(QWidget* parent) : QWidget(parent)
{
    table_ = new QTableWidget(0, 2);
    table_->setHorizontalHeaderLabels({tr("stage"), tr("ms")});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    chart_ = new StageChart;
    summary_ = new QLabel(tr("no run yet"));
    reason_ = new QPlainTextEdit;
    reason_->setReadOnly(true);
    reason_->setMaximumHeight(fontMetrics().lineSpacing() * 6);
    reason_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // never widens the dock
    reason_->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    display_ = new QLabel;
    for (QLabel* l : {summary_, display_}) l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(reason_);
    layout->addWidget(table_);
    layout->addWidget(chart_);
    layout->addWidget(display_);
    layout->addStretch(1);
}

double TimingsPanel::medianMs() const
{
    if (history_.empty()) return 0.0;
    std::vector<double> v(history_.begin(), history_.end());
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

void TimingsPanel::addRun(const convlab::RunReport& report, double pixels)
{
    history_.push_back(report.totalMs);
    if (history_.size() > kHistory) history_.pop_front();

    table_->setRowCount(int(report.stages.size()) + 1);
    int row = 0;
    auto setRow = [&](const QString& name, double ms) {
        table_->setItem(row, 0, new QTableWidgetItem(name));
        auto* value = new QTableWidgetItem(QString::number(ms, 'f', 3));
        value->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        table_->setItem(row, 1, value);
        ++row;
    };
    for (const auto& s : report.stages) setRow(QString::fromStdString(s.name), s.ms);
    setRow(tr("total"), report.totalMs);
    chart_->setStages(report.stages);
    // As tall as its rows, so the chart and the display time sit right below it.
    table_->setMaximumHeight(table_->horizontalHeader()->height() + 2 * table_->frameWidth() +
                             table_->verticalHeader()->length());

    const double mpxPerS = report.totalMs > 0 ? pixels / 1e6 / (report.totalMs / 1e3) : 0.0;
    summary_->setText(tr("total %1 ms\nmedian of last %2: %3 ms\n%4 Mpx/s · %5 thread(s)")
                          .arg(report.totalMs, 0, 'f', 2)
                          .arg(history_.size())
                          .arg(medianMs(), 0, 'f', 2)
                          .arg(mpxPerS, 0, 'f', 1)
                          .arg(report.threads));
    QString reason = tr("%1 on %2: %3")
                         .arg(QString::fromStdString(convlab::methodName(report.method)),
                              QString::fromStdString(convlab::deviceName(report.device)),
                              QString::fromStdString(report.reason));
    if (report.rank >= 0) reason += tr(" · rank %1").arg(report.rank);
    for (const std::string& n : report.notices) reason += "\n" + QString::fromStdString(n);
    reason_->setPlainText(reason);
}

void TimingsPanel::setDisplayMs(double ms) { display_->setText(tr("display (upload + draw): %1 ms").arg(ms, 0, 'f', 2)); }
