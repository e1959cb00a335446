// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/presetcatalog.h"

#include <QCoreApplication>
#include <algorithm>
#include <iterator>


namespace presetcatalog {

namespace {

struct Row {
    const char* group;
    const char* code;
    const char* name;
    const char* description;
};

// The menu's order: groups as they first appear, presets in table order within a group.
constexpr Row kTable[] = {
    {QT_TRANSLATE_NOOP("Presets", "Basic"), "identity", QT_TRANSLATE_NOOP("Presets", "Identity"),
     QT_TRANSLATE_NOOP("Presets", "Leaves the image unchanged: a single 1 at the centre.")},
    {QT_TRANSLATE_NOOP("Presets", "Blur"), "box", QT_TRANSLATE_NOOP("Presets", "Box"),
     QT_TRANSLATE_NOOP("Presets", "Plain average of the neighbourhood: fast, slightly blocky.")},
    {QT_TRANSLATE_NOOP("Presets", "Blur"), "gaussian", QT_TRANSLATE_NOOP("Presets", "Gaussian"),
     QT_TRANSLATE_NOOP("Presets", "Smooth blur whose weights fall off with distance.")},
    {QT_TRANSLATE_NOOP("Presets", "Blur"), "disk", QT_TRANSLATE_NOOP("Presets", "Disk"),
     QT_TRANSLATE_NOOP("Presets", "Out-of-focus blur: an even round spot.")},
    {QT_TRANSLATE_NOOP("Presets", "Blur"), "motion", QT_TRANSLATE_NOOP("Presets", "Motion"),
     QT_TRANSLATE_NOOP("Presets", "Streaks along a line, as from a moving camera.")},
    {QT_TRANSLATE_NOOP("Presets", "Sharpen"), "sharpen", QT_TRANSLATE_NOOP("Presets", "Sharpen"),
     QT_TRANSLATE_NOOP("Presets", "Crisper edges: the pixel minus its four neighbours.")},
    {QT_TRANSLATE_NOOP("Presets", "Sharpen"), "unsharp", QT_TRANSLATE_NOOP("Presets", "Unsharp mask"),
     QT_TRANSLATE_NOOP("Presets", "Adds back the detail a Gaussian blur removes.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "sobel-x", QT_TRANSLATE_NOOP("Presets", "Sobel, vertical edges"),
     QT_TRANSLATE_NOOP("Presets", "Brightness change left to right, smoothed across.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "sobel-y", QT_TRANSLATE_NOOP("Presets", "Sobel, horizontal edges"),
     QT_TRANSLATE_NOOP("Presets", "Brightness change top to bottom, smoothed across.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "scharr-x", QT_TRANSLATE_NOOP("Presets", "Scharr, vertical edges"),
     QT_TRANSLATE_NOOP("Presets", "Like Sobel, with weights that treat directions more evenly.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "scharr-y", QT_TRANSLATE_NOOP("Presets", "Scharr, horizontal edges"),
     QT_TRANSLATE_NOOP("Presets", "Like Sobel, with weights that treat directions more evenly.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "prewitt-x", QT_TRANSLATE_NOOP("Presets", "Prewitt, vertical edges"),
     QT_TRANSLATE_NOOP("Presets", "Brightness change left to right, averaged across.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "prewitt-y", QT_TRANSLATE_NOOP("Presets", "Prewitt, horizontal edges"),
     QT_TRANSLATE_NOOP("Presets", "Brightness change top to bottom, averaged across.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "laplacian4", QT_TRANSLATE_NOOP("Presets", "Laplacian (4 neighbours)"),
     QT_TRANSLATE_NOOP("Presets", "Edges in every direction: the pixel against its four neighbours.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "laplacian8", QT_TRANSLATE_NOOP("Presets", "Laplacian (8 neighbours)"),
     QT_TRANSLATE_NOOP("Presets", "Edges in every direction: the pixel against all eight neighbours.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "edge8", QT_TRANSLATE_NOOP("Presets", "Edge detector"),
     QT_TRANSLATE_NOOP("Presets", "The classic 8-neighbour edge kernel (the same as Laplacian 8).")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "log", QT_TRANSLATE_NOOP("Presets", "Laplacian of Gaussian (LoG)"),
     QT_TRANSLATE_NOOP("Presets", "Blur, then Laplacian: edges of one size, less noise.")},
    {QT_TRANSLATE_NOOP("Presets", "Edges"), "dog", QT_TRANSLATE_NOOP("Presets", "Difference of Gaussians (DoG)"),
     QT_TRANSLATE_NOOP("Presets", "One blur minus a wider one: a fast stand-in for LoG.")},
    {QT_TRANSLATE_NOOP("Presets", "Emboss"), "emboss", QT_TRANSLATE_NOOP("Presets", "Emboss"),
     QT_TRANSLATE_NOOP("Presets", "Relief look, as if lit from the top left.")},
    {QT_TRANSLATE_NOOP("Presets", "Designed"), "gabor", QT_TRANSLATE_NOOP("Presets", "Gabor"),
     QT_TRANSLATE_NOOP("Presets", "Responds to stripes of one width and direction.")},
    {QT_TRANSLATE_NOOP("Presets", "Designed"), "lowpass", QT_TRANSLATE_NOOP("Presets", "Low-pass filter"),
     QT_TRANSLATE_NOOP("Presets", "Keeps coarse detail below a chosen frequency.")},
    {QT_TRANSLATE_NOOP("Presets", "Designed"), "highpass", QT_TRANSLATE_NOOP("Presets", "High-pass filter"),
     QT_TRANSLATE_NOOP("Presets", "Keeps fine detail above a chosen frequency.")},
    {QT_TRANSLATE_NOOP("Presets", "Designed"), "bandpass", QT_TRANSLATE_NOOP("Presets", "Band-pass filter"),
     QT_TRANSLATE_NOOP("Presets", "Keeps detail between two frequencies.")},
    {QT_TRANSLATE_NOOP("Presets", "Designed"), "bandstop", QT_TRANSLATE_NOOP("Presets", "Band-stop filter"),
     QT_TRANSLATE_NOOP("Presets", "Removes detail between two frequencies.")},
};

QString translated(const char* text) { return QCoreApplication::translate("Presets", text); }

const Row* rowOf(const QString& code)
{
    const auto it = std::find_if(std::begin(kTable), std::end(kTable),
                                 [&](const Row& r) { return code == QLatin1String(r.code); });
    return it == std::end(kTable) ? nullptr : it;
}

Group& groupNamed(std::vector<Group>& groups, const QString& title)
{
    const auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.title == title; });
    if (it != groups.end()) return *it;
    groups.push_back({title, {}});
    return groups.back();
}

std::vector<Group> buildGroups()
{
    // The table's order, so that the menu reads as the table does; then what the core has
    // that the table does not list yet.
    std::vector<Group> groups;
    for (const Row& row : kTable)
        if (const QString code = QString::fromLatin1(row.code); findPreset(code))
            groupNamed(groups, translated(row.group)).entries.push_back(entry(code));
    for (const convlab::PresetInfo& p : convlab::presetList())
        if (const QString code = QString::fromStdString(p.name); !rowOf(code))
            groupNamed(groups, translated(QT_TRANSLATE_NOOP("Presets", "Other"))).entries.push_back(entry(code));
    return groups;
}

} // namespace

const std::vector<Group>& groups()
{
    static const std::vector<Group> list = buildGroups();
    return list;
}

const convlab::PresetInfo* findPreset(const QString& code)
{
    const auto& list = convlab::presetList();
    const auto it = std::find_if(list.begin(), list.end(),
                                 [&](const convlab::PresetInfo& p) { return QString::fromStdString(p.name) == code; });
    return it == list.end() ? nullptr : &*it;
}

Entry entry(const QString& code)
{
    if (const Row* row = rowOf(code)) return {code, translated(row->name), translated(row->description)};
    // Not in the table: the core's own words.
    const convlab::PresetInfo* preset = findPreset(code);
    return {code, code, preset ? QString::fromStdString(preset->description) : QString()};
}

} // namespace presetcatalog
