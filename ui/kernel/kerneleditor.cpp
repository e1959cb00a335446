// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel/kerneleditor.h"

#include <QCheckBox>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QStyle>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "convlab/convolve.h"
#include "convlab/costs.h"
#include "convlab/error.h"
#include "kernel/kerneldocument.h"
#include "kernel/kernelmodel.h"
#include "kernel/kernelpicture.h"
#include "kernel/presetcatalog.h"
#include "kernel/presetdialog.h"

namespace {

// A plain line edit for every cell, so any text reaches the model, which accepts or rejects it.
class CellDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const override
    {
        auto* e = new QLineEdit(parent);
        e->setFrame(false);
        e->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
        return e;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override
    {
        auto* e = static_cast<QLineEdit*>(editor);
        e->setText(index.data(Qt::EditRole).toString());
        e->selectAll();
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override
    {
        model->setData(index, static_cast<QLineEdit*>(editor)->text(), Qt::EditRole);
    }
    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::paint(painter, option, index);
        if (!index.data(kernelgrid::kAnchorRole).toBool()) return;
        // An outline, not a fill: the cell keeps the tint that tells its sign and size.
        painter->save();
        painter->setPen(QPen(QColor(230, 126, 34), 2));
        painter->setBrush(Qt::NoBrush);
        painter->drawRect(QRectF(option.rect).adjusted(1.5, 1.5, -1.5, -1.5));
        painter->restore();
    }
};

// Kernels up to this side get their rank on every edit; bigger ones get it from the next run.
constexpr int kLiveRankSide = 63;
// Kernels up to this width fill the panel's width; wider ones keep their fitted columns and scroll.
constexpr int kMaxStretchColumns = 9;
// Kernels up to this many cells have every cell measured for the column width; bigger ones
// (presets and files go up to 1025 x 1025) the cells in view, widening as the grid scrolls.
constexpr int kMeasureAllCells = 16384;

} // namespace

KernelEditor::KernelEditor(KernelDocument* doc, QWidget* parent) : QWidget(parent), doc_(doc)
{
    model_ = new KernelModel(doc_, this);
    QHBoxLayout* sizeRow = buildSizeRow();
    QGridLayout* scaleRow = buildScaleRow();
    buildTable();
    QHBoxLayout* viewRow = buildViewRow();
    buildMessages();

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(sizeRow);
    layout->addLayout(scaleRow);
    layout->addLayout(viewRow);
    layout->addWidget(table_, 1);
    layout->addWidget(message_);
    layout->addLayout(buildSummaryRow());

    connect(doc_, &KernelDocument::changed, this, &KernelEditor::syncFromDocument);
    syncFromDocument();
    updateFactor();
    fitColumns();
}

QHBoxLayout* KernelEditor::buildSizeRow()
{
    width_ = new QSpinBox;
    height_ = new QSpinBox;
    for (QSpinBox* s : {width_, height_}) {
        s->setRange(1, kMaxEditSide);
        s->setKeyboardTracking(false); // resize once the number is complete, not per digit
    }
    width_->setToolTip(tr("Kernel width (columns)"));
    height_->setToolTip(tr("Kernel height (rows)"));
    auto resize = [this] { guarded([this] { doc_->resize(width_->value(), height_->value()); }); };
    connect(width_, &QSpinBox::valueChanged, this, resize);
    connect(height_, &QSpinBox::valueChanged, this, resize);

    presets_ = new QToolButton;
    presets_->setText(tr("Presets"));
    presets_->setToolTip(tr("Ready-made kernels by purpose: blur, sharpen, edges, emboss, designed filters"));
    presets_->setPopupMode(QToolButton::InstantPopup);
    presets_->setMenu(makePresetMenu(presets_, [this](const QString& code) { choosePreset(code); }));

    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(new QLabel(tr("Size")));
    sizeRow->addWidget(width_);
    sizeRow->addWidget(new QLabel(QStringLiteral("×")));
    sizeRow->addWidget(height_);
    sizeRow->addStretch(1);
    sizeRow->addWidget(presets_);
    return sizeRow;
}

namespace {

// A number box that writes its value as short as it reads back ("1", "0.5", "0.00392157"),
// not with a fixed count of decimals ("1.000000" did not fit a narrow dock: "1.00000(").
class CompactSpinBox : public QDoubleSpinBox {
public:
    CompactSpinBox()
    {
        setDecimals(9); // what the value keeps; the text shows only the digits it needs
    }
    QString textFromValue(double value) const override
    {
        return locale().toString(value, 'g', 9).remove(locale().groupSeparator());
    }
};

} // namespace

QGridLayout* KernelEditor::buildScaleRow()
{
    normalize_ = new QCheckBox(tr("Normalize"));
    normalize_->setToolTip(tr("Multiply the scale by 1/sum(K) (zero-sum kernels are left alone)"));
    connect(normalize_, &QCheckBox::toggled, this, [this](bool on) { guarded([&] { doc_->setNormalize(on); }); });
    scale_ = new CompactSpinBox;
    offset_ = new CompactSpinBox;
    for (QDoubleSpinBox* s : {scale_, offset_}) {
        s->setRange(-1e6, 1e6);
        s->setSingleStep(0.1);
    }
    scale_->setToolTip(tr("final = scale × (K ∗ image) + offset"));
    offset_->setToolTip(scale_->toolTip());
    connect(scale_, &QDoubleSpinBox::valueChanged, this, [this](double v) { guarded([&] { doc_->setScale(v); }); });
    connect(offset_, &QDoubleSpinBox::valueChanged, this, [this](double v) { guarded([&] { doc_->setOffset(v); }); });
    semantics_ = new QComboBox;
    semantics_->addItem(tr("Convolution"), int(convlab::Semantics::Convolution));
    semantics_->addItem(tr("Correlation"), int(convlab::Semantics::Correlation));
    semantics_->setItemData(0, tr("out(y,x) = Σ K(v,u)·in(y+ay−v, x+ax−u): the kernel is flipped"), Qt::ToolTipRole);
    semantics_->setItemData(1, tr("out(y,x) = Σ K(v,u)·in(y−ay+v, x−ax+u): what OpenCV filter2D computes"),
                            Qt::ToolTipRole);
    connect(semantics_, &QComboBox::activated, this, [this](int i) {
        guarded([&] { doc_->setSemantics(static_cast<convlab::Semantics>(semantics_->itemData(i).toInt())); });
    });

    // Two columns, not one long row: the dock stays narrow enough to leave the image the
    // larger part of the window.
    auto* scaleRow = new QGridLayout;
    scaleRow->addWidget(normalize_, 0, 0);
    scaleRow->addWidget(semantics_, 0, 1);
    auto* scaleBox = new QHBoxLayout;
    scaleBox->addWidget(new QLabel(tr("Scale")));
    scaleBox->addWidget(scale_, 1);
    auto* offsetBox = new QHBoxLayout;
    offsetBox->addWidget(new QLabel(tr("Offset")));
    offsetBox->addWidget(offset_, 1);
    scaleRow->addLayout(scaleBox, 1, 0);
    scaleRow->addLayout(offsetBox, 1, 1);
    for (QDoubleSpinBox* s : {scale_, offset_}) s->setMinimumWidth(60);
    return scaleRow;
}

void KernelEditor::buildTable()
{
    table_ = new QTableView;
    table_->setModel(model_);
    table_->setItemDelegate(new CellDelegate(table_));
    table_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                            QAbstractItemView::AnyKeyPressed);
    table_->horizontalHeader()->setMinimumSectionSize(36);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    table_->setWordWrap(false);
    table_->setTextElideMode(Qt::ElideNone);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setContextMenuPolicy(Qt::CustomContextMenu);
    table_->viewport()->installEventFilter(this);
    table_->setToolTip(tr("Double-click or type to edit a cell; Ctrl+click sets the anchor. Red cells are "
                          "positive, blue negative, stronger for larger values; the anchor is outlined."));
    connect(table_, &QWidget::customContextMenuRequested, this, &KernelEditor::showCellMenu);
    // Cells of big kernels are measured as they scroll into view.
    for (QScrollBar* bar : {table_->horizontalScrollBar(), table_->verticalScrollBar()})
        connect(bar, &QScrollBar::valueChanged, this, [this] {
            if (model_->rowCount() * model_->columnCount() > kMeasureAllCells) fitColumns(true);
        });
}

void KernelEditor::showCellMenu(const QPoint& pos)
{
    const QModelIndex index = table_->indexAt(pos);
    if (!index.isValid()) return;
    QMenu menu;
    menu.addAction(tr("Set anchor here"), this, [&] { guarded([&] { doc_->setAnchor(index.column(), index.row()); }); });
    menu.addAction(tr("Reset anchor to the centre"), this, [&] {
        guarded([&] { doc_->setAnchor(doc_->kernel().width / 2, doc_->kernel().height / 2); });
    });
    menu.exec(table_->viewport()->mapToGlobal(pos));
}

QHBoxLayout* KernelEditor::buildViewRow()
{
    integerView_ = new QCheckBox(tr("Show as integers × factor"));
    integerView_->setChecked(model_->integerViewRequested());
    integerView_->setToolTip(tr("When every value is an integer multiple of one factor 1/N (1 2 1; 2 4 2; 1 2 1 / 16, "
                                "a box), the grid shows the integers and the factor above it. Typing t into a "
                                "cell then sets t × 1/N. Off: every value as a decimal."));
    connect(integerView_, &QCheckBox::toggled, model_, &KernelModel::setIntegerView);
    factor_ = new QLabel;
    factor_->setObjectName("kernelFactor");
    QFont factorFont = factor_->font();
    factorFont.setBold(true);
    factor_->setFont(factorFont);
    factor_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    connect(model_, &KernelModel::presentationChanged, this, [this] {
        updateFactor();
        fitColumns();
    });
    auto* viewRow = new QHBoxLayout;
    viewRow->addWidget(integerView_);
    viewRow->addStretch(1);
    viewRow->addWidget(factor_);
    return viewRow;
}

void KernelEditor::buildMessages()
{
    message_ = new QLabel;
    message_->setWordWrap(true);
    message_->setStyleSheet("color: #c0392b");
    message_->hide();
    connect(model_, &KernelModel::inputRejected, this, &KernelEditor::showMessage);
    connect(model_, &KernelModel::inputAccepted, this, &KernelEditor::clearMessage);
    // Any valid change of the kernel (preset, undo, paste, scale …) makes a rejected cell's
    // message old news.
    connect(doc_, &KernelDocument::changed, this, &KernelEditor::clearMessage);

    sum_ = new QLabel;
    rank_ = new QLabel;
    rank_->setWordWrap(true);
    sum_->setWordWrap(true); // beside the kernel's picture: "sum 0  Σ|K| 16  anchor (1, 1)" wraps
    sum_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    rank_->setTextInteractionFlags(Qt::TextSelectableByMouse);
}

QHBoxLayout* KernelEditor::buildSummaryRow()
{
    // The picture beside the numbers, so that it costs the grid no height of its own.
    picture_ = new KernelPicture(doc_);
    auto* numbers = new QVBoxLayout;
    numbers->addWidget(sum_);
    numbers->addWidget(rank_);
    numbers->addStretch(1);
    auto* row = new QHBoxLayout;
    row->addWidget(picture_, 0, Qt::AlignTop);
    row->addLayout(numbers, 1);
    return row;
}

void KernelEditor::updateFactor()
{
    const int n = model_->displayDenominator();
    factor_->setText(n > 1 ? tr("× 1/%1").arg(n) : QString());
    factor_->setToolTip(n > 1 ? tr("Every value is the integer shown times 1/%1").arg(n) : QString());
    factor_->setVisible(n > 1);
}

int KernelEditor::cellTextWidth(int row, int column) const
{
    const QModelIndex index = model_->index(row, column);
    const QVariant font = index.data(Qt::FontRole);
    const QFontMetrics fm(font.isValid() ? font.value<QFont>() : table_->font());
    // The delegate's text margin on either side, and the grid line.
    const int margin = table_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table_) + 1;
    return fm.horizontalAdvance(index.data().toString()) + 2 * margin + 2;
}

void KernelEditor::keepRowsInView()
{
    // However short the dock, the grid shows the first rows whole (a 3x3 kernel never hides
    // one); taller kernels scroll beyond that.
    constexpr int kRowsAlwaysShown = 5;
    const int rows = std::min(model_->rowCount(), kRowsAlwaysShown);
    const int height = table_->horizontalHeader()->sizeHint().height() +
                       rows * table_->verticalHeader()->defaultSectionSize() + 2 * table_->frameWidth() +
                       table_->horizontalScrollBar()->sizeHint().height();
    table_->setMinimumHeight(height);
}

void KernelEditor::fitColumns(bool keepWidth)
{
    QHeaderView* header = table_->horizontalHeader();
    const int rows = model_->rowCount(), columns = model_->columnCount();
    if (rows == 0 || columns == 0) return;
    if (!keepWidth) keepRowsInView();
    int widest = std::max(header->minimumSectionSize(), keepWidth ? fittedWidth_ : 0);
    if (rows * columns <= kMeasureAllCells) {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < columns; ++c) widest = std::max(widest, cellTextWidth(r, c));
    } else {
        // Only what is in view (and then what scrolls into view): measuring a million cells on
        // every edit would stall typing.
        const int top = std::max(0, table_->rowAt(0));
        const int bottom = table_->rowAt(table_->viewport()->height() - 1);
        const int left = std::max(0, table_->columnAt(0));
        const int right = std::min(columns - 1, left + table_->viewport()->width() / header->minimumSectionSize() + 1);
        for (int r = top; r <= (bottom < 0 ? rows - 1 : bottom); ++r)
            for (int c = left; c <= right; ++c) widest = std::max(widest, cellTextWidth(r, c));
    }
    fittedWidth_ = widest;
    int width = widest;
    const int available = table_->viewport()->width();
    if (columns <= kMaxStretchColumns && available > widest * columns) width = available / columns;
    if (appliedWidth_ == width && appliedColumns_ == columns && header->sectionSize(columns - 1) == width) return;
    appliedWidth_ = width;
    appliedColumns_ = columns;
    for (int c = 0; c < columns; ++c) header->resizeSection(c, width);
}

QString KernelEditor::message() const { return message_->isVisible() ? message_->text() : QString(); }

void KernelEditor::clearMessage() { showMessage({}); }

void KernelEditor::showMessage(const QString& text)
{
    message_->setText(text);
    message_->setVisible(!text.isEmpty());
}

void KernelEditor::guarded(const std::function<void()>& edit)
{
    try {
        edit();
    } catch (const convlab::Error& e) {
        emit errorOccurred(QString::fromUtf8(e.what()));
        syncFromDocument();
    }
}

void KernelEditor::choosePreset(const QString& name)
{
    const convlab::PresetInfo* preset = presetcatalog::findPreset(name);
    if (!preset) {
        emit errorOccurred(tr("There is no preset '%1'.").arg(name));
        return;
    }
    if (preset->params.empty()) {
        // Nothing to ask: a dialog with only OK would be one click for nothing.
        guarded([&] { doc_->setKernel(convlab::makePreset(preset->name), tr("Preset %1").arg(name)); });
        return;
    }
    PresetDialog dialog(*preset, this);
    if (dialog.exec() != QDialog::Accepted) return;
    guarded([&] {
        doc_->setKernel(dialog.kernel(), tr("Preset %1 (%2)").arg(name, dialog.parameterText()));
    });
}

bool KernelEditor::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == table_->viewport() && event->type() == QEvent::Resize) fitColumns(true);
    if (watched == table_->viewport() && event->type() == QEvent::MouseButtonPress) {
        auto* me = static_cast<QMouseEvent*>(event);
        if (me->button() == Qt::LeftButton && (me->modifiers() & Qt::ControlModifier)) {
            const QModelIndex index = table_->indexAt(me->position().toPoint());
            if (index.isValid()) {
                guarded([&] { doc_->setAnchor(index.column(), index.row()); });
                return true;
            }
        }
    }
    return QWidget::eventFilter(watched, event);
}

void KernelEditor::syncFromDocument()
{
    const KernelState& s = doc_->state();
    const convlab::Kernel& k = s.kernel;
    {
        const QSignalBlocker b1(width_), b2(height_), b3(normalize_), b4(scale_), b5(offset_), b6(semantics_);
        // Presets and files may be bigger than the editing limit: the spin boxes follow them.
        width_->setMaximum(std::max(kMaxEditSide, k.width));
        height_->setMaximum(std::max(kMaxEditSide, k.height));
        width_->setValue(k.width);
        height_->setValue(k.height);
        normalize_->setChecked(s.normalize);
        scale_->setValue(s.scale);
        offset_->setValue(s.offset);
        semantics_->setCurrentIndex(semantics_->findData(int(s.semantics)));
    }
    const double sum = k.sum();
    QString sumText = tr("sum %1   Σ|K| %2   anchor (%3, %4)")
                          .arg(QString::number(sum, 'g', 7), QString::number(k.absSum(), 'g', 7))
                          .arg(k.ax())
                          .arg(k.ay());
    if (s.normalize && std::fabs(sum) <= 1e-12 * std::max(1.0, k.absSum()))
        sumText += tr("   (zero sum: normalize leaves it alone)");
    sum_->setText(sumText);
    if (std::max(k.width, k.height) <= kLiveRankSide) {
        const convlab::SvdInfo svd = convlab::analyzeRank(k);
        QStringList sv;
        for (std::size_t i = 0; i < std::min<std::size_t>(svd.singularValues.size(), 4); ++i)
            sv << QString::number(svd.singularValues[i], 'g', 4);
        if (svd.singularValues.size() > 4) sv << QStringLiteral("…");
        rank_->setText(tr("rank %1 (singular values %2)%3")
                           .arg(svd.rank)
                           .arg(sv.join(", "), svd.rank == 1 ? tr(": separable") : QString()));
    } else {
        rank_->setText(tr("rank: reported by the next run (see Timings)"));
    }
}
