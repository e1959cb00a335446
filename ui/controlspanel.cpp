// SPDX-License-Identifier: GPL-3.0-or-later
#include "controlspanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>

void fillMethodCombo(QComboBox* combo)
{
    const std::pair<convlab::Method, QString> methods[] = {
        {convlab::Method::Auto, QObject::tr("the cheapest by the cost model; the choice is reported")},
        {convlab::Method::Direct, QObject::tr("the spatial sum")},
        {convlab::Method::Separable, QObject::tr("rank-r row and column passes from the kernel's SVD")},
        {convlab::Method::Fft, QObject::tr("pad, real FFT, pointwise product, crop")},
        {convlab::Method::Reference, QObject::tr("double-precision direct sum: the oracle (slow)")},
    };
    for (const auto& [m, tip] : methods) {
        combo->addItem(QString::fromStdString(convlab::methodName(m)), int(m));
        combo->setItemData(combo->count() - 1, tip, Qt::ToolTipRole);
    }
}

void fillBackendCombo(QComboBox* combo)
{
    combo->addItem(QObject::tr("CPU"), int(convlab::Device::Cpu));
    combo->addItem(QObject::tr("CUDA"), int(convlab::Device::Cuda));
    std::string reason;
    if (!convlab::cudaAvailable(&reason)) {
        auto* model = qobject_cast<QStandardItemModel*>(combo->model());
        QStandardItem* item = model->item(1);
        item->setEnabled(false);
        item->setToolTip(QObject::tr("CUDA unavailable: %1").arg(QString::fromStdString(reason)));
    }
}

QString ControlsPanel::borderAliases(convlab::BorderMode m)
{
    using B = convlab::BorderMode;
    switch (m) {
    case B::Constant:
        return tr("value c outside\nOpenCV BORDER_CONSTANT · scipy 'constant' (cval) · MATLAB X (0 by default)");
    case B::Replicate:
        return tr("clamp: aaa|abcd|ddd\nOpenCV BORDER_REPLICATE · scipy 'nearest' · MATLAB 'replicate'");
    case B::Reflect:
        return tr("period 2n: cba|abcd|dcb\nOpenCV BORDER_REFLECT · scipy 'reflect' · MATLAB 'symmetric'");
    case B::Mirror:
        return tr("period 2n−2: dcb|abcd|cba\nOpenCV BORDER_REFLECT_101 · scipy 'mirror' · MATLAB: none");
    case B::Wrap:
        return tr("period n: bcd|abcd|abc\nOpenCV BORDER_WRAP · scipy 'wrap' · MATLAB 'circular'");
    }
    return {};
}

ControlsPanel::ControlsPanel(QWidget* parent) : QWidget(parent)
{
    border_ = new QComboBox;
    for (int i = 0; i <= int(convlab::BorderMode::Wrap); ++i)
        border_->addItem(QString::fromStdString(convlab::borderName(convlab::BorderMode(i))), i);
    constant_ = new QDoubleSpinBox;
    constant_->setDecimals(4);
    constant_->setRange(-1e6, 1e6);
    constant_->setToolTip(tr("The value outside the image for the constant mode"));
    borderInfo_ = new QLabel;
    borderInfo_->setWordWrap(true);
    borderInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    method_ = new QComboBox;
    fillMethodCombo(method_);
    backend_ = new QComboBox;
    fillBackendCombo(backend_);
    threads_ = new QSpinBox;
    threads_->setRange(0, std::max(1, QThread::idealThreadCount()) * 4);
    threads_->setSpecialValueText(tr("all (%1)").arg(QThread::idealThreadCount()));
    threads_->setKeyboardTracking(false);

    auto* form = new QFormLayout(this);
    form->addRow(tr("Border"), border_);
    form->addRow(tr("Constant"), constant_);
    form->addRow(borderInfo_);
    form->addRow(tr("Method"), method_);
    form->addRow(tr("Backend"), backend_);
    form->addRow(tr("Threads"), threads_);

    connect(border_, &QComboBox::currentIndexChanged, this, [this] {
        updateBorderInfo();
        emit changed();
    });
    connect(constant_, &QDoubleSpinBox::valueChanged, this, &ControlsPanel::changed);
    connect(method_, &QComboBox::currentIndexChanged, this, &ControlsPanel::changed);
    connect(backend_, &QComboBox::currentIndexChanged, this, &ControlsPanel::changed);
    connect(threads_, &QSpinBox::valueChanged, this, &ControlsPanel::changed);
    setBorder({});
    updateBorderInfo();
}

void ControlsPanel::updateBorderInfo()
{
    const auto mode = convlab::BorderMode(border_->currentData().toInt());
    constant_->setEnabled(mode == convlab::BorderMode::Constant);
    borderInfo_->setText(borderAliases(mode));
}

convlab::Border ControlsPanel::border() const
{
    convlab::Border b;
    b.mode = convlab::BorderMode(border_->currentData().toInt());
    b.value = static_cast<float>(constant_->value());
    return b;
}

convlab::Method ControlsPanel::method() const { return convlab::Method(method_->currentData().toInt()); }
convlab::Device ControlsPanel::device() const { return convlab::Device(backend_->currentData().toInt()); }
int ControlsPanel::threads() const { return threads_->value(); }

void ControlsPanel::setBorder(const convlab::Border& b)
{
    constant_->setValue(b.value);
    border_->setCurrentIndex(border_->findData(int(b.mode)));
}

void ControlsPanel::setMethod(convlab::Method m) { method_->setCurrentIndex(method_->findData(int(m))); }

void ControlsPanel::setDevice(convlab::Device d)
{
    const int i = backend_->findData(int(d));
    auto* model = qobject_cast<QStandardItemModel*>(backend_->model());
    if (i >= 0 && model->item(i)->isEnabled()) backend_->setCurrentIndex(i);
}

void ControlsPanel::setThreads(int n) { threads_->setValue(n); }
