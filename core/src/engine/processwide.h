// SPDX-License-Identifier: GPL-3.0-or-later
// A process-wide object that is never destroyed and that a child made by fork replaces.
//
// Never destroyed: a thread the program does not join (a Python daemon thread, a detached
// std::thread) may still be inside it when the process exits, and a static destructor that
// joins workers or frees plans under it aborts or crashes the exit. The process's end reclaims
// its memory and threads.
//
// Replaced after fork: the child has only the thread that forked, none of the object's workers,
// and any of its mutexes may have been held by one of them at the moment of the fork. So the
// child must not touch the parent's object at all: the atfork handler only forgets it (leaked)
// and the child's next use makes a fresh one, with threads of its own.
#pragma once
#include <atomic>

#include <pthread.h>

namespace convlab::detail {

template <class T> class ProcessWide {
public:
    static T& instance()
    {
        T* current = slot().load(std::memory_order_acquire);
        if (current) return *current;
        auto* fresh = new T;
        if (!slot().compare_exchange_strong(current, fresh, std::memory_order_acq_rel)) {
            delete fresh; // another thread made one first; this one never started anything
            return *current;
        }
        static const bool registered = (pthread_atfork(nullptr, nullptr, &forgetInChild), true);
        (void)registered;
        return *fresh;
    }

private:
    static std::atomic<T*>& slot()
    {
        static std::atomic<T*> object{nullptr}; // trivially destructible: valid until the end
        return object;
    }
    // Runs in the child, on its only thread, before the fork returns there.
    static void forgetInChild() { slot().store(nullptr, std::memory_order_release); }
};

} // namespace convlab::detail
