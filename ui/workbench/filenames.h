// SPDX-License-Identifier: GPL-3.0-or-later
// The names the File menu proposes and writes: Save Kernel's extension from the chosen filter,
// Save Result's suggestion from the source and the kernel, Open Recent's entries. Pure functions,
// so that what a dialog would be given can be tested without one.
#pragma once
#include <QString>

namespace filenames {

// Save Kernel's filters, in the order the dialog lists them.
QString kernelJsonFilter();
QString kernelTextFilter();
// The file Save Kernel writes for what the user typed and the filter chosen: a name that ends in
// neither .json nor .txt gets the filter's extension ("gauss" under the text filter: gauss.txt).
// A typed .json or .txt is kept: the user named the format.
QString kernelSavePath(const QString& typed, const QString& selectedFilter);
// Whether saveKernelFile writes JSON to `path` (it decides by the extension).
bool isJsonKernelPath(const QString& path);
// `path` with its last extension replaced by (or, without one, given) `suffix` (no dot).
QString withSuffix(const QString& path, const QString& suffix);

// `text` made safe as part of a file name on every platform: letters, digits, '-', '_' and '.'
// kept, every run of anything else one '_', no '_' or '.' at either end; `fallback` if nothing
// is left.
QString sanitizedFileName(const QString& text, const QString& fallback);
// Save Result's suggestion: "SOURCE-KERNEL.png" in the source's folder (`sourcePath`, empty for
// an image that came from no file, whose `sourceTitle` names it and which gets no folder).
QString resultSuggestion(const QString& sourcePath, const QString& sourceTitle, const QString& kernelName);

// An Open Recent entry: the file's name and its folder ("coffee.png — /home/ana/pictures"),
// '&' doubled so that the menu shows it rather than taking it for a shortcut mark.
QString recentEntryText(const QString& path);

} // namespace filenames
