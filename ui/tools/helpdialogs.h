// SPDX-License-Identifier: GPL-3.0-or-later
// Help > Keyboard Shortcuts and Help > Teaching Guide.
//
// The shortcuts table is built from the window's QActions each time it opens (menu path, key,
// where it works), so a new command or a changed key shows up by itself; keys that are not
// menu commands (Space on the view, the probe's arrow keys, Ctrl+click in the grid) follow in
// a short list of their own. The guide is docs/guide.md, built in as the Qt resource
// :/docs/guide.md and drawn by QTextBrowser::setMarkdown.
#pragma once
#include <QDialog>
#include <QString>

class QMainWindow;
class QTableWidget;
class QTextBrowser;

class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    explicit ShortcutsDialog(QMainWindow* window);
    // Reads the window's actions again.
    void refresh();
    QTableWidget* table() const { return table_; }

private:
    QMainWindow* window_;
    QTableWidget* table_;
};

class GuideDialog : public QDialog {
    Q_OBJECT
public:
    explicit GuideDialog(QWidget* parent = nullptr);
    QTextBrowser* browser() const { return browser_; }
    // The guide's Markdown as built in (empty if the resource is missing).
    static QString markdown();

private:
    QTextBrowser* browser_;
};
