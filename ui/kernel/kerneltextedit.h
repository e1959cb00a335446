// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel as text, beside the grid (ImageJ's Convolver style): the whole kernel typed or
// pasted at once, rows separated by newlines or ';', values by spaces or commas, fractions such
// as 1/16 allowed: the CLI's -k text, read by the same parser (convlab::parseKernelText).
// Apply (or Ctrl+Return in the box) makes it the kernel as one undo step; text that does not
// parse leaves the kernel alone and shows the parser's message under the box. The box follows
// the document: any other edit (grid, preset, paste, undo) rewrites it.
#pragma once
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class KernelDocument;
namespace convlab {
struct Kernel;
}

class KernelTextEdit : public QWidget {
    Q_OBJECT
public:
    // Kernels with a longer side are not written into the box (it says so instead).
    static constexpr int kMaxShownSide = 63;

    explicit KernelTextEdit(KernelDocument* doc, QWidget* parent = nullptr);

    QPlainTextEdit* textBox() const { return text_; }
    QPushButton* applyButton() const { return apply_; }
    // The parser's message for the last text that failed to apply; empty when none.
    QString message() const;
    // Parses the box and sets the kernel (one undo step); false, with the message shown, when
    // the text does not parse.
    bool applyText();

    // One row a line, columns aligned, each value in its shortest exact spelling (so the text
    // reads back as the very same floats).
    static QString format(const convlab::Kernel& kernel);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void syncFromDocument();
    void showMessage(const QString& text);

    KernelDocument* doc_;
    QPlainTextEdit* text_;
    QPushButton* apply_;
    QLabel* message_;
    QString shown_;        // the document's kernel as the box shows it
    bool syncing_ = false; // the box is being rewritten from the document, not typed into
};
