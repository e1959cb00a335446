// SPDX-License-Identifier: GPL-3.0-or-later
#include "tools/estimatedialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <algorithm>
#include <new>

#include "convlab/error.h"
#include "convlab/estimate.h"
#include "convlab/io.h"
#include "convlab/modes.h"
#include "kernel/kerneldocument.h"

namespace {

constexpr int kInterior = -1; // the border combo's item for "interior only"

QString imageFilter()
{
    return QObject::tr("Images (*.png *.jpg *.jpeg *.tif *.tiff *.bmp *.pgm *.ppm *.pnm *.webp *.npy);;All files (*)");
}

} // namespace

struct EstimateDialog::Outcome {
    convlab::KernelEstimate estimate;
    convlab::Semantics semantics = convlab::Semantics::Convolution;
    QString error; // empty: the estimate holds the result
    bool cancelled = false;
};

EstimateDialog::EstimateDialog(KernelDocument* kernel, QWidget* parent) : QDialog(parent), kernel_(kernel)
{
    setWindowTitle(tr("Estimate Kernel from Image Pair"));
    setMinimumWidth(560); // room for file paths
    pool_.setMaxThreadCount(1);

    source_ = new QLineEdit;
    source_->setPlaceholderText(tr("the current image"));
    source_->setToolTip(tr("The image before filtering; leave empty for the image shown in the window"));
    filtered_ = new QLineEdit;
    filtered_->setPlaceholderText(tr("the same image filtered by any program"));
    const auto fileRow = [this](QLineEdit* edit, const QString& title) {
        auto* row = new QHBoxLayout;
        row->addWidget(edit, 1);
        auto* browse = new QPushButton(tr("Browse…"));
        browse->setAutoDefault(false);
        connect(browse, &QPushButton::clicked, this, [this, edit, title] { chooseFile(edit, title); });
        row->addWidget(browse);
        return row;
    };

    const convlab::Kernel& k = kernel_->kernel();
    width_ = new QSpinBox;
    height_ = new QSpinBox;
    for (QSpinBox* s : {width_, height_}) s->setRange(1, convlab::kMaxEstimateSide);
    width_->setValue(std::clamp(k.width, 1, convlab::kMaxEstimateSide));
    height_->setValue(std::clamp(k.height, 1, convlab::kMaxEstimateSide));
    auto* size = new QHBoxLayout;
    size->addWidget(width_);
    size->addWidget(new QLabel(QStringLiteral("×")));
    size->addWidget(height_);
    size->addStretch(1);

    semantics_ = new QComboBox;
    semantics_->addItem(tr("Convolution"), int(convlab::Semantics::Convolution));
    semantics_->addItem(tr("Correlation"), int(convlab::Semantics::Correlation));
    setSemantics(kernel_->state().semantics);

    border_ = new QComboBox;
    border_->addItem(tr("Interior only"), kInterior);
    for (const convlab::BorderModeInfo& m : convlab::borderModes())
        border_->addItem(tr("Every pixel, border %1").arg(QString::fromUtf8(m.name)), int(m.mode));
    border_->setToolTip(tr("Interior: only the outputs whose kernel footprint lies inside the image count. A border "
                           "mode: every output counts, with the samples outside the image given by that rule "
                           "(the one the filtering program used)."));
    constant_ = new QDoubleSpinBox;
    constant_->setRange(-1e9, 1e9);
    constant_->setDecimals(4);
    constant_->setToolTip(tr("The constant outside the image"));
    auto* fit = new QHBoxLayout;
    fit->addWidget(border_, 1);
    fit->addWidget(constant_);
    connect(border_, &QComboBox::currentIndexChanged, this, &EstimateDialog::updateConstantValue);
    updateConstantValue();

    ridge_ = new QDoubleSpinBox;
    ridge_->setRange(0.0, 1e6);
    ridge_->setDecimals(4);
    ridge_->setSingleStep(0.01);
    ridge_->setToolTip(tr("Ridge weight, relative to the source's mean power: 0 is plain least squares; larger "
                          "values shrink the kernel (noisy pairs, images with little detail)"));

    result_ = new QLabel(tr("The kernel goes into the grid, with its semantics, scale 1, offset 0 and no "
                            "normalize, as one undo step."));
    result_->setWordWrap(true);
    result_->setMinimumHeight(result_->fontMetrics().lineSpacing() * 3); // the longest message, unclipped
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout(this);
    form->addRow(tr("Source"), fileRow(source_, tr("Source Image")));
    form->addRow(tr("Filtered"), fileRow(filtered_, tr("Filtered Image")));
    form->addRow(tr("Kernel size"), size);
    form->addRow(tr("Semantics"), semantics_);
    form->addRow(tr("Fit"), fit);
    form->addRow(tr("Ridge"), ridge_);
    form->addRow(result_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    estimate_ = buttons->addButton(tr("Estimate"), QDialogButtonBox::ApplyRole);
    estimate_->setDefault(true);
    connect(estimate_, &QPushButton::clicked, this, &EstimateDialog::start);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

EstimateDialog::~EstimateDialog()
{
    latest_.invalidate();
    pool_.clear();
    pool_.waitForDone();
}

void EstimateDialog::setCurrentSource(std::shared_ptr<const convlab::Image> image) { current_ = std::move(image); }
void EstimateDialog::setSourcePath(const QString& path) { source_->setText(path); }
void EstimateDialog::setFilteredPath(const QString& path) { filtered_->setText(path); }

void EstimateDialog::setKernelSize(int width, int height)
{
    width_->setValue(width);
    height_->setValue(height);
}

void EstimateDialog::setSemantics(convlab::Semantics s) { semantics_->setCurrentIndex(semantics_->findData(int(s))); }

void EstimateDialog::setBorder(std::optional<convlab::Border> border)
{
    border_->setCurrentIndex(border_->findData(border ? int(border->mode) : kInterior));
    if (border) constant_->setValue(border->value);
}

void EstimateDialog::setRidge(double ridge) { ridge_->setValue(ridge); }

QString EstimateDialog::resultText() const { return result_->text(); }

void EstimateDialog::updateConstantValue()
{
    constant_->setVisible(border_->currentData().toInt() == int(convlab::BorderMode::Constant));
}

void EstimateDialog::chooseFile(QLineEdit* into, const QString& title)
{
    const QString dir = into->text().isEmpty() ? QString() : QFileInfo(into->text()).path();
    const QString path = QFileDialog::getOpenFileName(this, title, dir, imageFilter());
    if (!path.isEmpty()) into->setText(path);
}

void EstimateDialog::start()
{
    const QString sourcePath = source_->text().trimmed(), filteredPath = filtered_->text().trimmed();
    if (filteredPath.isEmpty() || (sourcePath.isEmpty() && !current_)) {
        latest_.invalidate();
        result_->setText(filteredPath.isEmpty() ? tr("Choose the filtered image.")
                                                : tr("Open an image or choose a source file."));
        emit finished(false);
        return;
    }
    convlab::EstimateOptions options;
    options.width = width_->value();
    options.height = height_->value();
    options.semantics = convlab::Semantics(semantics_->currentData().toInt());
    if (const int mode = border_->currentData().toInt(); mode != kInterior)
        options.border = convlab::Border{convlab::BorderMode(mode), float(constant_->value())};
    options.ridge = ridge_->value();

    const LatestOnly::Ticket ticket = latest_.begin();
    options.cancel = ticket.cancel.get();
    result_->setText(tr("Estimating a %1×%2 kernel…").arg(options.width).arg(options.height));
    pool_.clear(); // an estimate not yet started is no longer wanted
    pool_.start([this, ticket, options, current = current_, sourcePath, filteredPath] {
        auto out = std::make_shared<Outcome>();
        out->semantics = options.semantics;
        try {
            const auto load = [](const QString& path) {
                return std::make_shared<const convlab::Image>(convlab::loadImage(path.toStdString()));
            };
            const auto source = sourcePath.isEmpty() ? current : load(sourcePath);
            const auto filtered = load(filteredPath);
            out->estimate = convlab::estimateKernel(*source, *filtered, options);
        } catch (const convlab::Cancelled&) {
            out->cancelled = true;
        } catch (const convlab::Error& e) {
            out->error = QString::fromUtf8(e.what());
        } catch (const std::bad_alloc&) {
            out->error = tr("out of memory");
        }
        // The destructor waits for this task, so the dialog is alive while the call is queued.
        QMetaObject::invokeMethod(this, [this, id = ticket.id, out] { deliver(id, out); }, Qt::QueuedConnection);
    });
}

void EstimateDialog::deliver(quint64 id, std::shared_ptr<const Outcome> outcome)
{
    if (!latest_.finish(id)) return; // superseded, or the dialog was closed
    if (outcome->cancelled) {
        result_->setText(tr("Cancelled."));
        emit finished(false);
        return;
    }
    if (!outcome->error.isEmpty()) {
        result_->setText(tr("Cannot estimate the kernel: %1").arg(outcome->error));
        emit finished(false);
        return;
    }
    const convlab::KernelEstimate& e = outcome->estimate;
    // The kernel alone reproduces the filtered image: no normalize, scale or offset on top.
    convlab::KernelSpec spec;
    spec.kernel = e.kernel;
    spec.semantics = outcome->semantics;
    spec.normalize = false;
    spec.scale = 1.0;
    spec.offset = 0.0;
    try {
        kernel_->setSpec(spec, tr("Estimate %1×%2 kernel from image pair").arg(e.kernel.width).arg(e.kernel.height));
    } catch (const convlab::Error& err) {
        result_->setText(tr("Cannot use the estimated kernel: %1").arg(QString::fromUtf8(err.what())));
        emit finished(false);
        return;
    }
    result_->setText(tr("Residual RMSE %1 (in the filtered image's units) over %2 equations, %3 channel(s). "
                        "The kernel is in the grid; Edit › Undo takes it back.")
                         .arg(e.residualRmse, 0, 'g', 6)
                         .arg(qulonglong(e.equations))
                         .arg(e.channels));
    emit finished(true);
}

void EstimateDialog::hideEvent(QHideEvent* e)
{
    if (latest_.pending()) {
        latest_.invalidate();
        result_->setText(tr("Cancelled."));
    }
    QDialog::hideEvent(e);
}
