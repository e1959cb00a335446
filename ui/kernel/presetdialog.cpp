// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/presetdialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QMenu>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <climits>

#include "convlab/error.h"
#include "kernel/presetcatalog.h"

namespace {

QComboBox* choiceField(const convlab::PresetParam& p)
{
    auto* combo = new QComboBox;
    for (const std::string& c : p.choices) combo->addItem(QString::fromStdString(c));
    combo->setCurrentIndex(static_cast<int>(p.defaultValue));
    return combo;
}

QSpinBox* wholeField(const convlab::PresetParam& p)
{
    auto* spin = new QSpinBox;
    spin->setRange(int(std::clamp(p.minValue, double(INT_MIN), double(INT_MAX))),
                   int(std::clamp(p.maxValue, double(INT_MIN), double(INT_MAX))));
    // The box shows its special text at its minimum: 0 here, which lets the preset choose.
    if (p.zeroIsAuto && p.minValue == 0) spin->setSpecialValueText(QObject::tr("auto"));
    spin->setValue(int(p.defaultValue));
    return spin;
}

QDoubleSpinBox* numberField(const convlab::PresetParam& p)
{
    auto* spin = new QDoubleSpinBox;
    spin->setDecimals(3);
    spin->setRange(p.minValue, p.maxValue);
    // Frequencies in cycles/pixel span 0..0.5: a step of 1 would jump from end to end.
    if (p.maxValue - p.minValue <= 1) spin->setSingleStep(0.01);
    spin->setValue(p.defaultValue);
    return spin;
}

} // namespace

QMenu* makePresetMenu(QWidget* parent, const std::function<void(const QString& code)>& choose)
{
    auto* menu = new QMenu(parent);
    for (const presetcatalog::Group& group : presetcatalog::groups()) {
        QMenu* sub = menu->addMenu(group.title);
        sub->setToolTipsVisible(true);
        for (const presetcatalog::Entry& e : group.entries) {
            const convlab::PresetInfo* info = presetcatalog::findPreset(e.code);
            // The ellipsis says that a dialog follows; without it the preset applies at once.
            const QString text = info && !info->params.empty() ? e.name + QStringLiteral("…") : e.name;
            QAction* a = sub->addAction(text, parent, [choose, code = e.code] { choose(code); });
            a->setToolTip(e.description);
            a->setStatusTip(e.description);
            a->setObjectName("preset-" + e.code);
        }
    }
    return menu;
}

PresetDialog::PresetDialog(const convlab::PresetInfo& preset, QWidget* parent) : QDialog(parent), preset_(preset)
{
    const presetcatalog::Entry entry = presetcatalog::entry(QString::fromStdString(preset.name));
    setWindowTitle(tr("Preset: %1").arg(entry.name));
    auto* layout = new QVBoxLayout(this);
    auto* summary = new QLabel(QStringLiteral("<b>%1</b>").arg(entry.description.toHtmlEscaped()));
    summary->setWordWrap(true);
    layout->addWidget(summary);
    // The core's precise words under the plain ones, for those who want the formula.
    auto* description = new QLabel(QString::fromStdString(preset.description));
    description->setWordWrap(true);
    layout->addWidget(description);
    auto* form = new QFormLayout;
    for (const convlab::PresetParam& p : preset.params) {
        QWidget* field = makeField(p);
        form->addRow(QString::fromStdString(p.name), field);
        fields_.append(field);
    }
    layout->addLayout(form);
    message_ = new QLabel;
    message_->setWordWrap(true);
    message_->setStyleSheet("color: #c0392b");
    message_->hide();
    layout->addWidget(message_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

QWidget* PresetDialog::makeField(const convlab::PresetParam& p)
{
    QWidget* field = !p.choices.empty() ? static_cast<QWidget*>(choiceField(p))
                     : p.whole          ? static_cast<QWidget*>(wholeField(p))
                                        : static_cast<QWidget*>(numberField(p));
    field->setToolTip(QString::fromStdString(p.help));
    field->setObjectName(QString::fromStdString(p.name));
    return field;
}

QString PresetDialog::parameterText() const
{
    QStringList parts;
    for (const QWidget* field : fields_) {
        QString value;
        if (const auto* whole = qobject_cast<const QSpinBox*>(field))
            value = QString::number(whole->value()); // 0 for "auto"
        else if (const auto* number = qobject_cast<const QDoubleSpinBox*>(field))
            value = QString::number(number->value(), 'g', 10);
        else
            value = static_cast<const QComboBox*>(field)->currentText();
        parts << field->objectName() + '=' + value;
    }
    return parts.join(',');
}

void PresetDialog::accept()
{
    try {
        kernel_ = convlab::makePreset(preset_.name, parameterText().toStdString());
    } catch (const convlab::Error& e) {
        message_->setText(QString::fromUtf8(e.what()));
        message_->show();
        return;
    }
    QDialog::accept();
}
