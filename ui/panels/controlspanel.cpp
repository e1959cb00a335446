// SPDX-License-Identifier: GPL-3.0-or-later
#include "panels/controlspanel.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>

#include "convlab/modes.h"

void fillMethodCombo(QComboBox* combo)
{
    for (const convlab::MethodInfo& m : convlab::methods()) {
        combo->addItem(QString::fromUtf8(m.name), int(m.method));
        combo->setItemData(combo->count() - 1, QString::fromUtf8(m.description), Qt::ToolTipRole);
    }
}

void fillBackendCombo(QComboBox* combo)
{
    auto* model = qobject_cast<QStandardItemModel*>(combo->model());
    for (const convlab::BackendInfo& b : convlab::backends()) {
        combo->addItem(QString::fromUtf8(b.label), int(b.device));
        QStandardItem* item = model->item(combo->count() - 1);
        const QString description = QString::fromUtf8(b.description);
        item->setToolTip(description.left(1).toUpper() + description.mid(1));
        std::string reason;
        if (b.available && !b.available(&reason)) {
            item->setEnabled(false);
            item->setToolTip(QObject::tr("%1 unavailable: %2").arg(QString::fromUtf8(b.label), QString::fromStdString(reason)));
        }
    }
}

QString ControlsPanel::borderAliases(convlab::BorderMode m)
{
    const convlab::BorderModeInfo& info = convlab::borderModeInfo(m);
    return QString::fromUtf8(info.rule) + '\n' + QString::fromStdString(convlab::otherLibraryNames(info));
}

ControlsPanel::ControlsPanel(QWidget* parent) : QWidget(parent)
{
    border_ = new QComboBox;
    for (const convlab::BorderModeInfo& m : convlab::borderModes())
        border_->addItem(QString::fromUtf8(m.name), int(m.mode));
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
    constant_->setEnabled(convlab::borderModeInfo(mode).takesValue);
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

WorkbenchDocument::RunSettings ControlsPanel::settings() const { return {border(), method(), device(), threads()}; }

void ControlsPanel::showSettings(const WorkbenchDocument::RunSettings& s)
{
    showing_ = true;
    setBorder(s.border);
    setMethod(s.method);
    setDevice(s.device);
    setThreads(s.threads);
    showing_ = false;
}

void ControlsPanel::attach(WorkbenchDocument* doc)
{
    showSettings(doc->runSettings());
    connect(this, &ControlsPanel::changed, doc, [this, doc] {
        if (!showing_) doc->setRunSettings(settings());
    });
    connect(doc, &WorkbenchDocument::paramsChanged, this, [this, doc] {
        if (doc->runSettings() != settings()) showSettings(doc->runSettings());
    });
}
