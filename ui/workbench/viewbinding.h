// SPDX-License-Identifier: GPL-3.0-or-later
// The window's image view as a view of the document: it draws the document's display state
// (mode, mapping, channel, split, difference scale, pixel grid) and, while the padding preview
// is on, the committed border over a margin of the kernel's reach; a drag of the split divider
// goes back to the document. The view itself holds no state of the workbench.
#pragma once
#include <QString>
#include <functional>

class ImageView;
class WorkbenchDocument;

// The margin the padding preview shows for the document's kernel: its reach past the anchor,
// at least 16 pixels and at most ImageView::kMaxPaddingMargin.
int paddingMarginFor(const WorkbenchDocument& doc);

// Connects `view` to `doc` for the view's lifetime and shows the state at once. `reportError`
// receives what the view refuses (a padding preview of a non-finite constant).
void bindViewToDocument(WorkbenchDocument* doc, ImageView* view, std::function<void(const QString&)> reportError);
