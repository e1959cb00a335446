// SPDX-License-Identifier: GPL-3.0-or-later
#include "uitestutil.h"

#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include "workbench/rendercontroller.h"

namespace convlab::test {

bool renderAfter(RenderController* render, const std::function<void()>& action, int timeoutMs)
{
    const quint64 before = render->latestId();
    action();
    const quint64 id = render->latestId();
    return id > before && QTest::qWaitFor([&] { return !render->busy() && render->resultId() == id; }, timeoutMs);
}

bool typeIntoCell(QTableView* table, int row, int column, const QString& text)
{
    const QModelIndex index = table->model()->index(row, column);
    table->setCurrentIndex(index);
    table->edit(index);
    auto* editor = qobject_cast<QLineEdit*>(table->indexWidget(index));
    if (!editor) return false;
    editor->selectAll();
    QTest::keyClick(editor, Qt::Key_Backspace);
    QTest::keyClicks(editor, text);
    QTest::keyClick(editor, Qt::Key_Return);
    // The delegate commits and closes the editor from the event loop.
    return QTest::qWaitFor([&] { return !table->indexWidget(index); }, 5000);
}

void useTestSettings(const char* suite)
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ConvLabTest");
    QCoreApplication::setApplicationName(suite);
    QSettings().clear();
}

} // namespace convlab::test
