// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/kerneldocument.h"

#include <QUndoCommand>
#include <algorithm>

#include "convlab/error.h"

bool KernelState::operator==(const KernelState& o) const
{
    const convlab::Kernel& a = kernel;
    const convlab::Kernel& b = o.kernel;
    return a.width == b.width && a.height == b.height && a.values == b.values && a.ax() == b.ax() &&
           a.ay() == b.ay() && normalize == o.normalize && scale == o.scale && offset == o.offset &&
           semantics == o.semantics;
}

convlab::KernelSpec KernelState::toSpec() const
{
    convlab::KernelSpec spec;
    spec.kernel = kernel;
    spec.normalize = normalize;
    spec.scale = scale;
    spec.offset = offset;
    spec.semantics = semantics;
    return spec;
}

QStringList KernelState::settingsATextFileDrops() const
{
    const KernelState plain; // what a text file reads back as, besides the values
    QStringList dropped;
    if (normalize != plain.normalize) dropped << QObject::tr("normalize");
    if (scale != plain.scale) dropped << QObject::tr("scale %1").arg(scale, 0, 'g', 9);
    if (offset != plain.offset) dropped << QObject::tr("offset %1").arg(offset, 0, 'g', 9);
    if (semantics != plain.semantics) dropped << QObject::tr("correlation");
    if (kernel.ax() != kernel.width / 2 || kernel.ay() != kernel.height / 2)
        dropped << QObject::tr("anchor (%1, %2)").arg(kernel.ax()).arg(kernel.ay());
    return dropped;
}

KernelState KernelState::fromSpec(const convlab::KernelSpec& spec)
{
    KernelState s;
    s.kernel = spec.kernel;
    s.normalize = spec.normalize.value_or(false);
    s.scale = spec.scale.value_or(1.0);
    s.offset = spec.offset.value_or(0.0);
    s.semantics = spec.semantics.value_or(convlab::Semantics::Convolution);
    return s;
}

// One step: the whole state before and after (kernels are small next to any image).
class KernelStateCommand : public QUndoCommand {
public:
    KernelStateCommand(KernelDocument* doc, KernelState before, KernelState after, const QString& text,
                       int mergeId)
        : QUndoCommand(text), doc_(doc), before_(std::move(before)), after_(std::move(after)), mergeId_(mergeId)
    {
    }
    void redo() override { doc_->assign(after_); }
    void undo() override { doc_->assign(before_); }
    int id() const override { return mergeId_; }
    bool mergeWith(const QUndoCommand* other) override
    {
        after_ = static_cast<const KernelStateCommand*>(other)->after_;
        setObsolete(after_ == before_);
        return true;
    }

private:
    KernelDocument* doc_;
    KernelState before_, after_;
    int mergeId_;
};

namespace {
enum MergeId { MergeScale = 1, MergeOffset = 2 };
}

KernelDocument::KernelDocument(QObject* parent) : QObject(parent)
{
    state_.kernel = convlab::Kernel(3, 3, {0, 0, 0, 0, 1, 0, 0, 0, 0});
    state_.kernel.name = "identity";
    undo_.setUndoLimit(500);
}

void KernelDocument::push(const KernelState& next, const QString& text, int mergeId)
{
    next.kernel.validate();
    if (next == state_) return;
    undo_.push(new KernelStateCommand(this, state_, next, text, mergeId));
}

void KernelDocument::assign(const KernelState& s)
{
    state_ = s;
    emit changed();
}

void KernelDocument::reset(const KernelState& state)
{
    state.kernel.validate();
    undo_.clear();
    assign(state);
}

void KernelDocument::setCell(int row, int column, float value)
{
    KernelState next = state_;
    convlab::Kernel& k = next.kernel;
    if (row < 0 || row >= k.height || column < 0 || column >= k.width)
        throw convlab::Error("cell (" + std::to_string(row) + ", " + std::to_string(column) + ") is outside the " +
                             std::to_string(k.width) + "x" + std::to_string(k.height) + " kernel");
    k.values[static_cast<std::size_t>(row) * k.width + column] = value;
    k.name.clear();
    push(next, tr("Edit cell (%1, %2)").arg(row).arg(column));
}

void KernelDocument::resize(int width, int height)
{
    const convlab::Kernel& old = state_.kernel;
    if (width == old.width && height == old.height) return;
    if (width < 1 || height < 1 || width > convlab::kMaxKernelSide || height > convlab::kMaxKernelSide)
        throw convlab::Error("kernel size " + std::to_string(width) + "x" + std::to_string(height) +
                             " is outside 1.." + std::to_string(convlab::kMaxKernelSide));
    // Shift so the old centre stays the centre; a grow by one cell adds it on the right/bottom.
    const int dx = width / 2 - old.width / 2;
    const int dy = height / 2 - old.height / 2;
    KernelState next = state_;
    convlab::Kernel k(width, height, std::vector<float>(static_cast<std::size_t>(width) * height, 0.0f));
    for (int v = 0; v < old.height; ++v)
        for (int u = 0; u < old.width; ++u) {
            const int nv = v + dy, nu = u + dx;
            if (nv >= 0 && nv < height && nu >= 0 && nu < width)
                k.values[static_cast<std::size_t>(nv) * width + nu] = old.at(v, u);
        }
    if (old.anchorX >= 0) k.anchorX = std::clamp(old.anchorX + dx, 0, width - 1);
    if (old.anchorY >= 0) k.anchorY = std::clamp(old.anchorY + dy, 0, height - 1);
    next.kernel = std::move(k);
    push(next, tr("Resize kernel to %1x%2").arg(width).arg(height));
}

void KernelDocument::setAnchor(int x, int y)
{
    KernelState next = state_;
    next.kernel.anchorX = x;
    next.kernel.anchorY = y;
    push(next, tr("Set anchor to (%1, %2)").arg(x).arg(y));
}

void KernelDocument::setKernel(const convlab::Kernel& kernel, const QString& what)
{
    KernelState next = state_;
    next.kernel = kernel;
    push(next, what);
}

void KernelDocument::setSpec(const convlab::KernelSpec& spec, const QString& what)
{
    KernelState next = state_;
    next.kernel = spec.kernel;
    if (spec.normalize) next.normalize = *spec.normalize;
    if (spec.scale) next.scale = *spec.scale;
    if (spec.offset) next.offset = *spec.offset;
    if (spec.semantics) next.semantics = *spec.semantics;
    push(next, what);
}

void KernelDocument::setNormalize(bool on)
{
    KernelState next = state_;
    next.normalize = on;
    push(next, on ? tr("Normalize") : tr("Do not normalize"));
}

void KernelDocument::setScale(double scale)
{
    KernelState next = state_;
    next.scale = scale;
    push(next, tr("Set scale"), MergeScale);
}

void KernelDocument::setOffset(double offset)
{
    KernelState next = state_;
    next.offset = offset;
    push(next, tr("Set offset"), MergeOffset);
}

void KernelDocument::setSemantics(convlab::Semantics s)
{
    KernelState next = state_;
    next.semantics = s;
    push(next, s == convlab::Semantics::Convolution ? tr("Convolution") : tr("Correlation"));
}
