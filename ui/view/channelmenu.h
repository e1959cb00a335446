// SPDX-License-Identifier: GPL-3.0-or-later
// View > Channel: All, or one channel of the image (R, G, B, A as it has them; Grey for one
// channel) shown alone, as grey. The menu follows the document: its entries are rebuilt when
// the source changes and the tick follows WorkbenchDocument::displayChannel.
#pragma once
#include <QMenu>

class QActionGroup;
class WorkbenchDocument;

class ChannelMenu : public QMenu {
    Q_OBJECT
public:
    explicit ChannelMenu(WorkbenchDocument* doc, QWidget* parent = nullptr);
    // The entry of channel c (-1: All); null when the image has no such channel.
    QAction* actionFor(int c) const;

private:
    void rebuild();
    void tick();

    WorkbenchDocument* doc_;
    QActionGroup* group_;
};
