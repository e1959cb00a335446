// SPDX-License-Identifier: GPL-3.0-or-later
// Helpers shared by the workbench GUI suites.
#pragma once
#include <QString>
#include <functional>

class QTableView;
class RenderController;

namespace convlab::test {

// Runs `action` and waits until the render it starts has been received; false on timeout or
// when the action started no render.
bool renderAfter(RenderController* render, const std::function<void()>& action, int timeoutMs = 30000);
// Types `text` into the editor of cell (row, column) as a user does (select, delete, type,
// Enter) and waits until the delegate has committed; false when no editor opened.
bool typeIntoCell(QTableView* table, int row, int column, const QString& text);
// Points QSettings at Qt's test location under `suite`'s name and clears it, so a suite never
// reads or writes the user's settings and starts from none.
void useTestSettings(const char* suite);

} // namespace convlab::test
