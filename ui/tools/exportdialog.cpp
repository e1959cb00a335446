// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/exportdialog.h"

#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGuiApplication>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTabWidget>
#include <QVBoxLayout>

#include "convlab/error.h"

// The tabs are indexed by the enum's value.
static constexpr bool tabsFollowTheEnum()
{
    for (int i = 0; i < ExportDialog::kTargetCount; ++i)
        if (int(ExportDialog::kTargets[i]) != i) return false;
    return true;
}
static_assert(tabsFollowTheEnum());

ExportDialog::ExportDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export Code — ConvLab"));
    summary_ = new QLabel;
    summary_->setWordWrap(true);
    tabs_ = new QTabWidget;
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    const QString titles[kTargetCount] = {tr("scipy.ndimage"), tr("OpenCV (Python)"), tr("OpenCV (C++)"), tr("CuPy"),
                                          tr("Dask")};
    for (int i = 0; i < kTargetCount; ++i) {
        editors_[i] = new QPlainTextEdit;
        editors_[i]->setReadOnly(true);
        editors_[i]->setFont(mono);
        editors_[i]->setLineWrapMode(QPlainTextEdit::NoWrap);
        tabs_->addTab(editors_[i], titles[i]);
        tabs_->setTabToolTip(i, QString::fromStdString(convlab::exportTargetName(kTargets[i])));
    }
    status_ = new QLabel;
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QPushButton* copyButton = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copyButton->setToolTip(tr("Copy the snippet of the shown tab to the clipboard"));
    connect(copyButton, &QPushButton::clicked, this, &ExportDialog::copy);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(tabs_, &QTabWidget::currentChanged, status_, &QLabel::clear);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(summary_);
    layout->addWidget(tabs_, 1);
    layout->addWidget(status_);
    layout->addWidget(buttons);
    resize(760, 560);
}

void ExportDialog::setParams(const convlab::ConvolveParams& p)
{
    const convlab::Kernel& k = p.kernel;
    summary_->setText(tr("The current filter: %1×%2 kernel%3, %4, border %5. Python snippets take a float32 "
                         "array <tt>img</tt> and leave <tt>out</tt> (Dask: a lazy dask array); alpha is filtered "
                         "like any channel.")
                          .arg(k.width)
                          .arg(k.height)
                          .arg(k.name.empty() ? QString() : QStringLiteral(" '%1'").arg(QString::fromStdString(k.name).toHtmlEscaped()))
                          .arg(p.semantics == convlab::Semantics::Convolution ? tr("convolution") : tr("correlation"))
                          .arg(QString::fromStdString(convlab::borderName(p.border.mode))));
    for (int i = 0; i < kTargetCount; ++i) {
        QString text;
        try {
            text = QString::fromStdString(convlab::exportCode(p, kTargets[i]));
        } catch (const convlab::Error& e) {
            text = tr("# Cannot export: %1").arg(QString::fromUtf8(e.what()));
        }
        // Keep the reader's scroll position when the text is the same.
        if (editors_[i]->toPlainText() != text) editors_[i]->setPlainText(text);
    }
    status_->clear();
}

QString ExportDialog::text(convlab::ExportTarget t) const { return editors_[int(t)]->toPlainText(); }

convlab::ExportTarget ExportDialog::currentTarget() const { return kTargets[tabs_->currentIndex()]; }

void ExportDialog::setCurrentTarget(convlab::ExportTarget t) { tabs_->setCurrentIndex(int(t)); }

void ExportDialog::copy()
{
    QGuiApplication::clipboard()->setText(text(currentTarget()));
    status_->setText(tr("Copied the %1 snippet.").arg(tabs_->tabText(tabs_->currentIndex())));
}
