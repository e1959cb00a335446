// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/workbenchdocument.h"

#include "view/mappingrule.h"
#include "workbench/memorybudget.h"

#include <QEventLoop>
#include <QFileInfo>
#include <QMetaObject>
#include <QUndoCommand>
#include <QUndoStack>
#include <algorithm>
#include <cmath>
#include <limits>
#include <new>
#include <string>
#include <utility>

#include "convlab/error.h"
#include "convlab/io.h"
#include "kernel/kerneldocument.h"
#include "workbench/rendercontroller.h"

WorkbenchDocument::Decoded WorkbenchDocument::decode(const QString& path)
{
    // 8/16-bit files are decoded once: the samples go to the GPU as they are, the float image
    // (the same values) to the CPU and the view.
    convlab::DecodedImage decoded = convlab::decodeImage(path.toStdString());
    Decoded out;
    if (!decoded.samples) {
        out.image = std::move(decoded.image);
        return out;
    }
    out.image = convlab::unpackImage(*decoded.samples);
    out.packed = std::make_shared<const convlab::PackedImage>(std::move(*decoded.samples));
    return out;
}

bool WorkbenchDocument::RunSettings::operator==(const RunSettings& o) const
{
    return border.mode == o.border.mode && border.value == o.border.value && method == o.method &&
           device == o.device && threads == o.threads;
}

WorkbenchDocument::WorkbenchDocument(QObject* parent)
    : QObject(parent), kernel_(new KernelDocument(this)), render_(new RenderController(this)),
      compare_(new RenderController(this))
{
    workers_.setMaxThreadCount(2); // one decode and one comparison at most
    connect(kernel_, &KernelDocument::changed, this, &WorkbenchDocument::paramsEdited);
    connect(render_, &RenderController::resultReady, this, &WorkbenchDocument::onRenderReady);
    connect(render_, &RenderController::gpuResultResident, this, &WorkbenchDocument::gpuResultResident);
    connect(render_, &RenderController::hostCopyReady, this, &WorkbenchDocument::onHostCopyReady);
    connect(render_, &RenderController::hostCopyFailed, this, &WorkbenchDocument::onHostCopyFailed);
    connect(render_, &RenderController::pixelRead, this, [this](quint64 id, int x, int y, const QVector<float>& v) {
        if (result_ && result_->requestId == id && !result_->image) emit resultPixelRead(x, y, v);
    });
    connect(render_, &RenderController::histogramCounted, this,
            [this](quint64 id, std::shared_ptr<const convlab::Histogram> h) {
                if (result_ && result_->requestId == id && !result_->image) emit resultHistogramCounted(std::move(h));
            });
    connect(render_, &RenderController::failed, this, [this](quint64, const QString& m) {
        emit renderFailed(m);
        emitBusy();
    });
    connect(render_, &RenderController::refused, this, [this](quint64, const QString& m) {
        emit renderRefused(m);
        emitBusy();
    });
    connect(render_, &RenderController::cancelled, this, [this] {
        emit renderCancelled();
        emitBusy();
    });
    connect(compare_, &RenderController::resultReady, this, &WorkbenchDocument::onCompareReady);
    connect(compare_, &RenderController::failed, this, [this](quint64, const QString& m) {
        if (!comparing_.pending()) return; // a comparison already given up
        comparing_.invalidate();
        comparedA_.reset();
        emit comparisonFailed(tr("Path B failed: %1").arg(m));
        emitBusy();
    });
    connect(compare_, &RenderController::cancelled, this, [this] {
        if (!comparing_.pending()) return;
        comparing_.invalidate();
        comparedA_.reset();
        emit comparisonFailed(tr("Comparison cancelled."));
        emitBusy();
    });
}

WorkbenchDocument::~WorkbenchDocument() { shutdown(); }

void WorkbenchDocument::shutdown()
{
    opening_.invalidate();
    comparing_.invalidate();
    render_->shutdown();
    compare_->shutdown();
    workers_.waitForDone();
}

// ---- the source ----

void WorkbenchDocument::setSource(convlab::Image image, const QString& title, const QString& path,
                                  std::shared_ptr<const convlab::PackedImage> packed)
{
    assignSource({std::make_shared<const convlab::Image>(std::move(image)), std::move(packed), title, path});
}

void WorkbenchDocument::assignSource(SourceRecord record)
{
    opening_.invalidate(); // an open still decoding would replace this image: drop it
    source_ = std::move(record.image);
    packed_ = std::move(record.packed);
    title_ = std::move(record.title);
    path_ = std::move(record.path);
    ++generation_.image;
    // The buffers of the previous image's size are of no use any more: give the memory back.
    render_->releaseSpareBuffers();
    compare_->releaseSpareBuffers();
    pathB_.reset(); // another image: nothing of the old comparison applies
    clearComparison(false);
    if (display_.channel >= source_->channels) {
        display_.channel = -1;
        emit displayChannelChanged(-1);
        emit displayStateChanged();
    }
    emit sourceChanged();
    requestRender();
}

void WorkbenchDocument::setDisplayChannel(int c)
{
    const int channels = source_ ? source_->channels : 0;
    if (c < -1 || c >= channels)
        throw convlab::Error("channel " + std::to_string(c) + " is not one of the image's " +
                             std::to_string(channels) + " channels");
    if (c == display_.channel) return;
    display_.channel = c;
    emit displayChannelChanged(c);
    emit displayStateChanged();
}

void WorkbenchDocument::assignDisplayState(const display::State& state)
{
    if (state == display_) return;
    display_ = state;
    emit displayStateChanged();
}

bool WorkbenchDocument::setViewMode(display::Mode mode)
{
    if (mode == display::Mode::Difference && !comparison_) return false;
    display::State s = display_;
    s.mode = mode;
    assignDisplayState(s);
    return true;
}

void WorkbenchDocument::setMapping(display::Mapping mapping)
{
    display::State s = display_;
    s.mapping = mapping;
    s.mappingFollowsKernel = false; // the user's choice holds until they ask for automatic again
    assignDisplayState(s);
}

void WorkbenchDocument::setMappingFollowsKernel(bool on)
{
    display::State s = display_;
    s.mappingFollowsKernel = on;
    if (on) s.mapping = kernelsMapping();
    assignDisplayState(s);
}

display::Mapping WorkbenchDocument::kernelsMapping() const
{
    const KernelState& k = kernel_->state();
    return display::mappingForKernel(k.kernel, k.scale, k.offset);
}

void WorkbenchDocument::followKernelWithMapping()
{
    if (!display_.mappingFollowsKernel) return;
    display::State s = display_;
    s.mapping = kernelsMapping();
    assignDisplayState(s); // emits nothing when the mapping stays
}

void WorkbenchDocument::setSplitPosition(double t)
{
    if (!std::isfinite(t)) return;
    display::State s = display_;
    s.splitPosition = std::clamp(t, 0.0, 1.0);
    assignDisplayState(s);
}

void WorkbenchDocument::setDifferenceScale(display::DifferenceScale scale, double absoluteMax)
{
    if (!std::isfinite(absoluteMax) || absoluteMax < 0)
        throw convlab::Error("the difference scale's maximum must be a finite value >= 0, not " +
                             std::to_string(absoluteMax));
    display::State s = display_;
    s.differenceScale = scale;
    s.differenceAbsoluteMax = absoluteMax;
    assignDisplayState(s);
}

void WorkbenchDocument::setPaddingShown(bool on)
{
    display::State s = display_;
    s.paddingShown = on;
    assignDisplayState(s);
}

void WorkbenchDocument::setEdgeLoupeShown(bool on)
{
    display::State s = display_;
    s.edgeLoupe = on;
    assignDisplayState(s);
}

void WorkbenchDocument::showLoupeForNewBorderRule()
{
    const convlab::Kernel& k = kernel_->state().kernel;
    const LoupeTrigger now{settings_.border.mode, k.width, k.height};
    if (now == loupeTrigger_) return;
    loupeTrigger_ = now;
    setEdgeLoupeShown(true);
}

void WorkbenchDocument::setPixelGridShown(bool on)
{
    display::State s = display_;
    s.pixelGrid = on;
    assignDisplayState(s);
}

void WorkbenchDocument::setFloatRangeByValues(bool on)
{
    display::State s = display_;
    s.floatRangeByValues = on;
    assignDisplayState(s);
}

QString WorkbenchDocument::channelName(int c, int channels, bool hasAlpha)
{
    const bool alpha = hasAlpha && channels > 1;
    if (alpha && c == channels - 1) return tr("A");
    const int colour = channels - int(alpha);
    if (colour == 3 && c < 3) return QStringList{tr("R"), tr("G"), tr("B")}.value(c);
    if (colour == 1 && c == 0) return tr("Grey");
    return QString::number(c);
}

// One chain step: the source before and after. A step applies only to the image it was made
// from: once another image replaced it (a file opened), undo and redo drop the step and go on
// to the next one, so a key press never does nothing.
class SourceCommand : public QUndoCommand {
public:
    SourceCommand(WorkbenchDocument* doc, WorkbenchDocument::SourceRecord before,
                  WorkbenchDocument::SourceRecord after)
        : QUndoCommand(QObject::tr("Use Result as Source")), doc_(doc), before_(std::move(before)),
          after_(std::move(after))
    {
    }
    void redo() override { swap(before_, after_, &QUndoStack::redo); }
    void undo() override { swap(after_, before_, &QUndoStack::undo); }

private:
    void swap(const WorkbenchDocument::SourceRecord& from, const WorkbenchDocument::SourceRecord& to,
              void (QUndoStack::*next)())
    {
        if (doc_->source_ != from.image) {
            setObsolete(true); // the stack deletes it after this call
            QMetaObject::invokeMethod(doc_->kernel()->undoStack(), next, Qt::QueuedConnection);
            return;
        }
        doc_->assignSource(to);
    }

    WorkbenchDocument* doc_;
    WorkbenchDocument::SourceRecord before_, after_;
};

QString WorkbenchDocument::describeKernel(const convlab::Kernel& kernel)
{
    const QString size = QStringLiteral("%1x%2").arg(kernel.width).arg(kernel.height);
    return kernel.name.empty() ? tr("%1 kernel").arg(size) : QString::fromStdString(kernel.name) + ' ' + size;
}

bool WorkbenchDocument::canUseResultAsSource() const
{
    return resultIsCurrent() && result_->source == source_;
}

void WorkbenchDocument::useResultAsSource()
{
    if (!canUseResultAsSource())
        throw convlab::Error(source_ ? "the result of the current kernel is not ready yet" : "there is no image yet");
    // The result is shared, not copied: the render controller reuses only buffers nobody holds.
    auto image = hostResult();
    if (!image || !canUseResultAsSource()) throw convlab::Error("the result could not be copied from the GPU");
    SourceRecord next{std::move(image), nullptr,
                      title_ + QStringLiteral(" › ") + describeKernel(result_->params.kernel), QString()};
    kernel_->undoStack()->push(new SourceCommand(this, sourceRecord(), std::move(next)));
}

quint64 WorkbenchDocument::open(const QString& path)
{
    const LatestOnly::Ticket ticket = opening_.begin();
    emit openStarted(path);
    emitBusy();
    workers_.start([this, ticket, path] {
        auto decoded = std::make_shared<Decoded>();
        QString error;
        try {
            if (!QFileInfo(path).isFile()) throw convlab::Error("no such file");
            // What the header claims first: an image the memory cannot hold is refused before
            // its decode allocates anything (formats whose header is not read: after).
            if (const auto claimed = convlab::claimedShape(path.toStdString())) {
                const QString tooLarge =
                    memorybudget::refusal(claimed->width, claimed->height, claimed->channels, availableMemory_());
                if (!tooLarge.isEmpty()) throw convlab::Error(tooLarge.toStdString());
            }
            *decoded = decode(path);
            // Before the results, the comparison and the view's copies are allocated: an image
            // the memory cannot hold is refused here, and the current one stays.
            const convlab::Image& im = decoded->image;
            const QString tooLarge = memorybudget::refusal(im.width, im.height, im.channels, availableMemory_(),
                                                           im.data.size() * sizeof(float));
            if (!tooLarge.isEmpty()) throw convlab::Error(tooLarge.toStdString());
        } catch (const convlab::Error& e) {
            error = QString::fromUtf8(e.what());
        } catch (const std::bad_alloc&) {
            error = tr("out of memory");
        }
        if (ticket.cancel->load()) return; // nobody waits for it any more
        QMetaObject::invokeMethod(
            this,
            [this, id = ticket.id, path, decoded, error] {
                if (!opening_.finish(id)) return; // superseded or cancelled
                if (error.isEmpty())
                    setSource(std::move(decoded->image), QFileInfo(path).fileName(),
                              QFileInfo(path).absoluteFilePath(), std::move(decoded->packed));
                else
                    emit openFailed(path, error);
                emitBusy();
            },
            Qt::QueuedConnection);
    });
    return ticket.id;
}

void WorkbenchDocument::cancelOpen()
{
    if (!opening_.pending()) return;
    opening_.invalidate();
    emitBusy();
}

// ---- the parameters ----

void WorkbenchDocument::setRunSettings(const RunSettings& s)
{
    if (s == settings_) return;
    settings_ = s;
    paramsEdited();
}

void WorkbenchDocument::paramsEdited()
{
    ++generation_.params;
    followKernelWithMapping(); // before the render: its result is drawn in the new mapping
    showLoupeForNewBorderRule();
    clearComparison();
    emit paramsChanged();
    requestRender();
}

convlab::ConvolveParams WorkbenchDocument::params() const
{
    const KernelState& s = kernel_->state();
    convlab::ConvolveParams p;
    p.kernel = s.kernel;
    p.semantics = s.semantics;
    p.normalize = s.normalize;
    p.scale = s.scale;
    p.offset = s.offset;
    p.border = settings_.border;
    p.method = settings_.method;
    p.device = settings_.device;
    p.threads = settings_.threads;
    return p;
}

// ---- rendering ----

bool WorkbenchDocument::overBudgetWaived() const
{
    return source_ && waivedMethod_ == settings_.method && waivedSource_.lock() == source_;
}

void WorkbenchDocument::runOverBudget()
{
    if (!source_) return;
    waivedMethod_ = settings_.method;
    waivedSource_ = source_;
    requestRender();
}

void WorkbenchDocument::requestRender()
{
    if (!source_) return;
    requested_ = generation_;
    const double budget = overBudgetWaived() ? std::numeric_limits<double>::infinity() : budgetSeconds_;
    render_->request(source_, params(), packed_, hostResultWanted() || std::exchange(forceHostCopy_, false), budget);
    emit renderStarted();
    emitBusy();
}

void WorkbenchDocument::onRenderReady(quint64 id)
{
    Result r;
    const auto buffer = render_->result();
    r.image = render_->resultOnDevice() ? nullptr : buffer;
    r.width = buffer->width;
    r.height = buffer->height;
    r.channels = buffer->channels;
    r.source = render_->resultSource();
    r.params = render_->resultParams();
    r.report = render_->report();
    r.generation = requested_; // the controller delivers only its newest request
    r.requestId = id;
    result_ = std::move(r);
    clearComparison();
    emit resultChanged();
    emitBusy();
    // Someone started reading values while this run was on its way without a host copy.
    if (!result_->image && hostResultWanted()) fetchHostResult();
    recompareAfterEdit();
}

// ---- the result's values in host memory ----

void WorkbenchDocument::setHostResultWanted(const QObject* who, bool wanted)
{
    if (wanted == hostWanted_.contains(who)) return;
    if (!wanted) {
        hostWanted_.remove(who);
        disconnect(who, &QObject::destroyed, this, nullptr);
        return;
    }
    hostWanted_.insert(who);
    connect(who, &QObject::destroyed, this, [this, who] { hostWanted_.remove(who); });
    fetchHostResult();
}

void WorkbenchDocument::fetchHostResult()
{
    if (result_ && !result_->image) render_->fetchHostCopy();
}

std::shared_ptr<const convlab::Image> WorkbenchDocument::hostResult()
{
    // A newer result that arrives meanwhile (also left on the device) is fetched in turn; a few
    // rounds at most, so that edits arriving without pause cannot keep the caller waiting.
    for (int round = 0; round < 3 && result_ && !result_->image; ++round) {
        fetchHostResult();
        if (!render_->fetchingHostCopy()) break;
        QEventLoop loop;
        const auto done = [&loop] { loop.quit(); };
        connect(this, &WorkbenchDocument::resultHostReady, &loop, done);
        connect(this, &WorkbenchDocument::resultChanged, &loop, done); // a newer result replaced it
        connect(this, &WorkbenchDocument::renderFailed, &loop, done);
        loop.exec();
    }
    return result_ ? result_->image : nullptr;
}

QVector<float> WorkbenchDocument::resultPixel(int x, int y)
{
    if (!result_ || x < 0 || y < 0 || x >= result_->width || y >= result_->height) return {};
    if (const auto& img = result_->image) {
        QVector<float> values(img->channels);
        for (int c = 0; c < img->channels; ++c) values[c] = img->at(c, y, x);
        return values;
    }
    render_->readPixel(x, y);
    return {};
}

bool WorkbenchDocument::countResultHistogramOnDevice(int maxBins)
{
    if (!result_ || result_->image) return false;
    return render_->countHistogram(maxBins);
}

void WorkbenchDocument::onHostCopyReady(quint64 id)
{
    if (!result_ || result_->requestId != id) return;
    result_->image = render_->result();
    emit resultHostReady();
    recompareAfterEdit(); // a comparison waiting for the values
}

void WorkbenchDocument::onHostCopyFailed(quint64 id, const QString& message)
{
    if (!result_ || result_->requestId != id) return;
    emit renderFailed(tr("The result could not be copied from the GPU: %1").arg(message));
    // Run again with the copy in the run: a fresh CUDA session, or the CPU if CUDA is gone.
    forceHostCopy_ = true;
    requestRender();
}

// ---- comparing ----

void WorkbenchDocument::compare(convlab::Method method, convlab::Device device)
{
    if (!result_) throw convlab::Error("no result yet: open an image first");
    if (!hostResult()) throw convlab::Error("the result could not be copied from the GPU");
    comparing_.begin();
    pathB_ = PathB{method, device};
    recompareRunning_ = false; // asked for: its difference goes on screen
    comparedA_ = result_;
    convlab::ConvolveParams p = result_->params;
    p.method = method;
    p.device = device;
    compare_->request(result_->source, p);
    emit comparisonStarted();
    emitBusy();
}

void WorkbenchDocument::onCompareReady(quint64)
{
    if (!comparing_.pending()) return; // given up (the result changed)
    const quint64 ticket = comparing_.latest();
    const auto b = compare_->result();
    if (!comparedA_ || !result_ || result_->image != comparedA_->image || !b || !comparedA_->image->sameShape(*b)) {
        comparing_.invalidate();
        comparedA_.reset();
        emit comparisonFailed(tr("The result changed during the comparison: press Compare again."));
        emitBusy();
        return;
    }
    // The statistics and the difference image read every value: off the UI thread.
    auto a = comparedA_->image;
    auto job = std::make_shared<Comparison>();
    job->reportB = compare_->report();
    job->paramsB = compare_->resultParams();
    job->generation = comparedA_->generation;
    workers_.start([this, a, b, job, ticket] {
        job->stats = convlab::compareImages(*a, *b);
        for (int c = 0; c < a->channels; ++c) job->channelStats.push_back(convlab::compareImages(*a, *b, c));
        job->difference = std::make_shared<const convlab::Image>(convlab::differenceImage(*a, *b));
        QMetaObject::invokeMethod(
            this,
            [this, job, ticket] {
                if (!comparing_.finish(ticket)) return;
                comparedA_.reset();
                if (!result_ || job->generation != result_->generation) {
                    emit comparisonFailed(tr("The result changed during the comparison: press Compare again."));
                } else {
                    // Made again after an edit, it goes back on screen only if it was there.
                    const bool show = !recompareRunning_ || recompareToDifference_;
                    recompareRunning_ = false;
                    stale_.reset();
                    recompareToDifference_ = false;
                    comparison_ = std::move(*job);
                    emit comparisonChanged();
                    if (show) setViewMode(display::Mode::Difference);
                }
                emitBusy();
            },
            Qt::QueuedConnection);
    });
}

void WorkbenchDocument::clearComparison(bool keepAsStale)
{
    const bool had = comparison_.has_value() || comparing_.pending() || (!keepAsStale && stale_);
    if (comparison_ && keepAsStale) {
        stale_ = std::move(comparison_);
        stale_->difference.reset(); // the figures alone: the map of older parameters is never drawn
        recompareToDifference_ = display_.mode == display::Mode::Difference;
    }
    if (!keepAsStale) {
        stale_.reset();
        recompareToDifference_ = false;
    }
    comparison_.reset();
    comparedA_.reset();
    if (comparing_.pending()) compare_->cancel();
    comparing_.invalidate();
    if (had) emit comparisonChanged();
    if (!comparison_ && display_.mode == display::Mode::Difference) setViewMode(display::Mode::Result);
}

void WorkbenchDocument::cancel()
{
    render_->cancel();
    compare_->cancel();
    cancelOpen();
}

bool WorkbenchDocument::busy() const { return render_->busy() || compare_->busy() || opening_.pending() || comparing_.pending(); }

void WorkbenchDocument::emitBusy()
{
    const bool now = busy();
    if (now == wasBusy_) return;
    wasBusy_ = now;
    emit busyChanged(now);
}

// ---- comparing again after an edit ----

void WorkbenchDocument::setAutoCompareSeconds(double s) { autoCompareSeconds_ = std::isfinite(s) ? std::max(0.0, s) : 0.0; }

const WorkbenchDocument::Comparison* WorkbenchDocument::staleComparison() const { return stale_ ? &*stale_ : nullptr; }

bool WorkbenchDocument::recompareIsCheap() const
{
    if (!pathB_ || !result_ || !result_->source || autoCompareSeconds_ <= 0.0) return false;
    convlab::ConvolveParams p = result_->params;
    p.method = pathB_->method;
    p.device = pathB_->device;
    const convlab::Image& s = *result_->source;
    double ms = convlab::estimateCpuMs(p, s.width, s.height, s.channels, s.hasAlpha);
    if (ms < 0.0 && p.method == convlab::Method::Reference) {
        // The planner prices the methods auto may pick, not the reference: it adds every tap of
        // every value in double, one after another, at about a nanosecond or two a tap.
        constexpr double kReferenceNsPerTap = 2.0;
        const double taps = double(s.width) * s.height * s.channels * p.kernel.width * p.kernel.height;
        ms = taps * kReferenceNsPerTap * 1e-6;
    }
    return ms >= 0.0 && ms < autoCompareSeconds_ * 1000.0; // unpriced: no promise, no run
}

void WorkbenchDocument::recompareAfterEdit()
{
    // Only for a stale comparison, against the newest result, once, and not while one runs.
    if (!stale_ || !resultIsCurrent() || comparing_.pending() || comparison_ || !recompareIsCheap()) return;
    if (!result_->image) {
        fetchHostResult(); // onHostCopyReady comes back here
        return;
    }
    try {
        compare(pathB_->method, pathB_->device);
        recompareRunning_ = true;
    } catch (const convlab::Error& e) {
        emit comparisonFailed(QString::fromUtf8(e.what()));
    }
}
