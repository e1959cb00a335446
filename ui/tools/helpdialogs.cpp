// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/helpdialogs.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>

// The resources live in a static library: register them before the first use.
static void registerGuideResource()
{
    Q_INIT_RESOURCE(resources);
}

namespace {

struct Row {
    QString command, keys, where;
};

QString plainText(const QAction* a) { return a->text().remove(QLatin1Char('&')).remove(QStringLiteral("…")); }

QString keysOf(const QAction* a)
{
    QStringList keys;
    for (const QKeySequence& k : a->shortcuts()) keys << k.toString(QKeySequence::NativeText);
    return keys.join(QStringLiteral(", "));
}

QString whereOf(const QAction* a, const QString& menuPath)
{
    // Single keys live on the image view so they never steal what is typed into the grid.
    if (a->shortcutContext() == Qt::WidgetWithChildrenShortcut || a->shortcutContext() == Qt::WidgetShortcut)
        return QObject::tr("%1 (in the image view)").arg(menuPath);
    return menuPath;
}

// Depth first through the menus, in menu order.
void collect(const QMenu* menu, const QString& path, QList<Row>& rows, QSet<const QAction*>& seen)
{
    for (QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        if (a->menu()) {
            collect(a->menu(), path + QStringLiteral(" › ") + plainText(a), rows, seen);
            continue;
        }
        seen.insert(a);
        if (!a->shortcuts().isEmpty()) rows.append({plainText(a), keysOf(a), whereOf(a, path)});
    }
}

// Keys that are not commands of a menu.
QList<Row> otherKeys()
{
    return {
        {QObject::tr("Show the original while held"), QObject::tr("Space"), QObject::tr("image view")},
        {QObject::tr("Move the pixel probe by 1 / 10 pixels"), QObject::tr("Arrows / Shift+Arrows"),
         QObject::tr("image view")},
        {QObject::tr("Probe a pixel"), QObject::tr("Click"), QObject::tr("image view")},
        {QObject::tr("Zoom about the cursor / pan"), QObject::tr("Wheel / drag"), QObject::tr("image view")},
        {QObject::tr("Set the anchor"), QObject::tr("Ctrl+Click"), QObject::tr("kernel grid")},
        {QObject::tr("Apply the kernel text"), QObject::tr("Ctrl+Return"), QObject::tr("kernel text box")},
    };
}

} // namespace

ShortcutsDialog::ShortcutsDialog(QMainWindow* window) : QDialog(window), window_(window)
{
    setWindowTitle(tr("Keyboard Shortcuts — ConvLab"));
    table_ = new QTableWidget(0, 3);
    table_->setHorizontalHeaderLabels({tr("Command"), tr("Keys"), tr("Where")});
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(table_);
    layout->addWidget(buttons);
    resize(640, 560);
    refresh();
}

void ShortcutsDialog::refresh()
{
    QList<Row> rows;
    QSet<const QAction*> seen;
    for (QAction* top : window_->menuBar()->actions())
        if (top->menu()) collect(top->menu(), plainText(top), rows, seen);
    // Actions with a key that no menu holds (added to a widget only).
    for (const QAction* a : window_->findChildren<QAction*>())
        if (!seen.contains(a) && !a->shortcuts().isEmpty() && !a->isSeparator())
            rows.append({plainText(a), keysOf(a), whereOf(a, tr("—"))});
    const QList<Row> others = otherKeys();
    table_->setRowCount(0);
    auto add = [this](const Row& r) {
        const int i = table_->rowCount();
        table_->insertRow(i);
        table_->setItem(i, 0, new QTableWidgetItem(r.command));
        table_->setItem(i, 1, new QTableWidgetItem(r.keys));
        table_->setItem(i, 2, new QTableWidgetItem(r.where));
    };
    for (const Row& r : rows) add(r);
    for (const Row& r : others) add(r);
}

GuideDialog::GuideDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Teaching Guide — ConvLab"));
    browser_ = new QTextBrowser;
    browser_->setOpenExternalLinks(true);
    // The licence line is an HTML comment, which Markdown would show as text here.
    QString text = markdown();
    if (text.startsWith(QStringLiteral("<!--"))) text.remove(0, text.indexOf(QStringLiteral("-->")) + 3);
    browser_->setMarkdown(text);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(browser_);
    layout->addWidget(buttons);
    resize(760, 720);
}

QString GuideDialog::markdown()
{
    static const bool registered = (registerGuideResource(), true);
    Q_UNUSED(registered);
    QFile file(QStringLiteral(":/docs/guide.md"));
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QString::fromUtf8(file.readAll());
}
