// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/kerneltextedit.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>
#include <algorithm>

#include "convlab/error.h"
#include "convlab/kernel.h"
#include "kernel/kerneldocument.h"

KernelTextEdit::KernelTextEdit(KernelDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc)
{
    text_ = new QPlainTextEdit;
    text_->setObjectName(QStringLiteral("kernelText"));
    text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    text_->setLineWrapMode(QPlainTextEdit::NoWrap);
    text_->setTabChangesFocus(true);
    // Room for a 3x3 kernel and the line of a horizontal scroll bar without scrolling.
    text_->setMinimumHeight(QFontMetrics(text_->font()).lineSpacing() * 5 + 2 * text_->frameWidth());
    text_->setToolTip(tr("The kernel as text, as convlab-cli -k reads it: rows on lines or separated by ';', "
                         "values by spaces or commas, fractions such as 1/16, '#' comments.\n"
                         "Ctrl+Return or Apply makes it the kernel (one undo step)."));
    text_->installEventFilter(this);
    apply_ = new QPushButton(tr("Apply"));
    apply_->setToolTip(tr("Make the text the kernel (Ctrl+Return in the box)"));
    apply_->setEnabled(false);
    message_ = new QLabel;
    message_->setObjectName(QStringLiteral("kernelTextMessage"));
    message_->setWordWrap(true);
    message_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    message_->hide();

    auto* caption = new QLabel(tr("As text"));
    auto* top = new QHBoxLayout;
    top->addWidget(caption);
    top->addStretch(1);
    top->addWidget(apply_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(text_, 1);
    layout->addWidget(message_);

    connect(apply_, &QPushButton::clicked, this, [this] { applyText(); });
    connect(text_, &QPlainTextEdit::textChanged, this, [this] {
        if (syncing_) return;
        // A message belongs to the text it was about.
        showMessage({});
        apply_->setEnabled(text_->toPlainText() != shown_);
    });
    connect(doc_, &KernelDocument::changed, this, &KernelTextEdit::syncFromDocument);
    syncFromDocument();
}

QString KernelTextEdit::format(const convlab::Kernel& kernel)
{
    // toText's spelling of each value, which parses back to the same float.
    const QStringList rows = QString::fromStdString(kernel.toText()).split(QStringLiteral("; "));
    QList<QStringList> cells;
    QList<int> widths(kernel.width, 0);
    for (const QString& row : rows) {
        cells << row.split(QLatin1Char(' '));
        for (int u = 0; u < cells.last().size() && u < widths.size(); ++u)
            widths[u] = std::max(widths[u], int(cells.last()[u].size()));
    }
    QStringList lines;
    for (const QStringList& row : cells) {
        QStringList padded;
        for (int u = 0; u < row.size(); ++u) padded << row[u].rightJustified(widths.value(u));
        lines << padded.join(QLatin1Char(' '));
    }
    return lines.join(QLatin1Char('\n'));
}

void KernelTextEdit::syncFromDocument()
{
    const convlab::Kernel& k = doc_->kernel();
    // A million values would make every edit wait for their text: large kernels are not shown,
    // but text can still be pasted over them.
    const bool shown = k.width <= kMaxShownSide && k.height <= kMaxShownSide;
    shown_ = shown ? format(k) : QString();
    text_->setPlaceholderText(shown ? tr("1 2 1\n2 4 2\n1 2 1")
                                    : tr("The %1×%2 kernel is too large to show as text; text typed or "
                                         "pasted here replaces it.")
                                          .arg(k.width)
                                          .arg(k.height));
    if (shown_ != text_->toPlainText()) {
        syncing_ = true;
        text_->setPlainText(shown_);
        syncing_ = false;
    }
    apply_->setEnabled(false);
    showMessage({});
}

bool KernelTextEdit::applyText()
{
    try {
        convlab::Kernel k = convlab::parseKernelText(text_->toPlainText().toStdString());
        const convlab::Kernel& current = doc_->kernel();
        if (k.width == current.width && k.height == current.height) {
            // New values in the same frame keep the anchor the user set.
            k.anchorX = current.anchorX;
            k.anchorY = current.anchorY;
        }
        doc_->setKernel(k, tr("Edit kernel as text"));
    } catch (const convlab::Error& e) {
        showMessage(QString::fromUtf8(e.what()));
        return false;
    }
    syncFromDocument(); // also when nothing changed: the box shows the kernel's own spelling
    return true;
}

QString KernelTextEdit::message() const { return message_->isHidden() ? QString() : message_->text(); }

void KernelTextEdit::showMessage(const QString& text)
{
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
}

bool KernelTextEdit::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == text_ && event->type() == QEvent::KeyPress) {
        const auto* k = static_cast<QKeyEvent*>(event);
        if ((k->key() == Qt::Key_Return || k->key() == Qt::Key_Enter) && (k->modifiers() & Qt::ControlModifier)) {
            applyText();
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}
