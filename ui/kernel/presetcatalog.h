// SPDX-License-Identifier: GPL-3.0-or-later
// The presets as the workbench offers them: in groups (Blur, Sharpen, Edges, ...), each under a
// plain name with a one-line description, while the core's code names ("sobel-x") stay what
// the CLI and kernel files use. One table (presetcatalog.cpp) holds the groups, names and
// descriptions; a core preset the table does not list still appears, under "Other".
#pragma once
#include <QString>
#include <QStringList>
#include <vector>

#include "convlab/kernel.h"

namespace presetcatalog {

struct Entry {
    QString code;        // the core's name, for makePreset and the CLI
    QString name;        // what the menu shows
    QString description; // one line
};

struct Group {
    QString title;
    std::vector<Entry> entries;
};

// Every preset of convlab::presetList() exactly once, grouped in menu order.
const std::vector<Group>& groups();

// The core's preset of a code name; null for an unknown one.
const convlab::PresetInfo* findPreset(const QString& code);

// The entry of a code name; an entry named after the code itself when the table lacks it.
Entry entry(const QString& code);

} // namespace presetcatalog
