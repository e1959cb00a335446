// SPDX-License-Identifier: GPL-3.0-or-later
// "Latest result wins": every piece of background work in the workbench (the render, the
// comparison, the kernel analysis, the border-mode lab, the crossover sweep) is started under
// a ticket; starting a newer one raises the older one's cancel flag, and whatever the older
// one delivers is dropped. UI thread only; the cancel flag is what crosses to the worker.
#pragma once
#include <QtGlobal>

#include <atomic>
#include <memory>

class LatestOnly {
public:
    struct Ticket {
        quint64 id = 0;
        std::shared_ptr<std::atomic<bool>> cancel; // the worker polls it (convlab's params.cancel)
    };

    // Starts new work: the work in flight (if any) is told to stop and becomes stale.
    Ticket begin()
    {
        cancel();
        pending_ = Ticket{++latest_, std::make_shared<std::atomic<bool>>(false)};
        return pending_;
    }
    // Whether work started under `id` is still the newest (its result may be shown).
    bool isLatest(quint64 id) const { return id != 0 && id == latest_; }
    // Called when the work of `id` delivered (or failed): true when it is the newest, which is
    // then no longer pending; false for superseded work, whose result must be dropped.
    bool finish(quint64 id)
    {
        if (!isLatest(id)) return false;
        pending_ = {};
        return true;
    }
    // Raises the newest work's cancel flag (it still finishes, as cancelled).
    void cancel()
    {
        if (pending_.cancel) pending_.cancel->store(true);
    }
    // Makes everything started so far stale without starting anything.
    void invalidate()
    {
        cancel();
        pending_ = {};
        ++latest_;
    }
    bool pending() const { return pending_.id != 0; }
    quint64 latest() const { return latest_; }

private:
    quint64 latest_ = 0;
    Ticket pending_;
};
