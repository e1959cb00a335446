// SPDX-License-Identifier: GPL-3.0-or-later
// The kernel being edited and the settings that travel with it (normalize, scale, offset,
// semantics). Every change is one step on the QUndoStack, so the editor, presets, paste and
// file loading all share one undo history.
#pragma once
#include <QObject>
#include <QString>
#include <QStringList>
#include <QUndoStack>

#include "convlab/kernel.h"

struct KernelState {
    convlab::Kernel kernel;
    bool normalize = false;
    double scale = 1.0;
    double offset = 0.0;
    convlab::Semantics semantics = convlab::Semantics::Convolution;

    bool operator==(const KernelState& o) const;
    convlab::KernelSpec toSpec() const;
    // The settings a text kernel file cannot keep that differ from what reading one gives back
    // (normalize off, scale 1, offset 0, convolution, the centred anchor), each named with its
    // value ("scale 2", "correlation", "anchor (0, 0)"): empty when a text file loses nothing.
    QStringList settingsATextFileDrops() const;
    static KernelState fromSpec(const convlab::KernelSpec& spec);
};

class KernelDocument : public QObject {
    Q_OBJECT
public:
    explicit KernelDocument(QObject* parent = nullptr);

    const KernelState& state() const { return state_; }
    const convlab::Kernel& kernel() const { return state_.kernel; }
    QUndoStack* undoStack() { return &undo_; }

    // Each call is one undoable step; a call that changes nothing pushes nothing.
    // Throws convlab::Error for a kernel that does not validate.
    void setCell(int row, int column, float value);
    // Keeps the values centred; cells that come into view are zero.
    void resize(int width, int height);
    void setAnchor(int x, int y);
    void setKernel(const convlab::Kernel& kernel, const QString& what);
    void setSpec(const convlab::KernelSpec& spec, const QString& what);
    void setNormalize(bool on);
    void setScale(double scale);
    void setOffset(double offset);
    void setSemantics(convlab::Semantics s);

    // Replaces the state without an undo step and clears the history (start-up, restore).
    void reset(const KernelState& state);

signals:
    void changed();

private:
    friend class KernelStateCommand;
    void push(const KernelState& next, const QString& text, int mergeId = -1);
    void assign(const KernelState& s);

    KernelState state_;
    QUndoStack undo_;
};
