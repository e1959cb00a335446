// SPDX-License-Identifier: GPL-3.0-or-later
#include "view/channelmenu.h"

#include <QActionGroup>

#include "convlab/error.h"
#include "workbench/workbenchdocument.h"

ChannelMenu::ChannelMenu(WorkbenchDocument* doc, QWidget* parent) : QMenu(tr("C&hannel"), parent), doc_(doc)
{
    setObjectName("channelMenu");
    group_ = new QActionGroup(this);
    group_->setExclusive(true);
    connect(doc_, &WorkbenchDocument::sourceChanged, this, &ChannelMenu::rebuild);
    connect(doc_, &WorkbenchDocument::displayChannelChanged, this, &ChannelMenu::tick);
    rebuild();
}

QAction* ChannelMenu::actionFor(int c) const
{
    for (QAction* a : group_->actions())
        if (a->data().toInt() == c) return a;
    return nullptr;
}

void ChannelMenu::rebuild()
{
    for (QAction* a : group_->actions()) {
        group_->removeAction(a);
        delete a;
    }
    const auto source = doc_->source();
    const int channels = source ? source->channels : 0;
    const auto add = [this](int c, const QString& text, const QString& tip) {
        QAction* a = addAction(text);
        a->setData(c);
        a->setCheckable(true);
        a->setStatusTip(tip);
        a->setObjectName(QStringLiteral("channel%1").arg(c));
        group_->addAction(a);
        connect(a, &QAction::triggered, this, [this, c] {
            try {
                doc_->setDisplayChannel(c);
            } catch (const convlab::Error&) {
                tick(); // the image changed under the menu: show what is on screen
            }
        });
    };
    add(-1, tr("&All"), tr("Show every channel of the image"));
    for (int c = 0; c < channels; ++c) {
        const QString name = WorkbenchDocument::channelName(c, channels, source->hasAlpha);
        add(c, tr("&%1").arg(name), tr("Show channel %1 alone, as grey; the probe, the Difference and the Histogram "
                                         "panels follow").arg(name));
    }
    // A single channel has nothing to choose between.
    setEnabled(channels > 1);
    tick();
}

void ChannelMenu::tick()
{
    if (QAction* a = actionFor(doc_->displayChannel())) a->setChecked(true);
}
