#pragma once

// Shared by the fuzz targets: a QCoreApplication for the process (the embedded cluster's objects
// use timers and deferred deletes) and a way to drain its posted events between inputs.

#include <QCoreApplication>

namespace reconscope::fuzz {

inline void ensureApplication()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "reconscope-fuzz";
    static char *argv[] = { name, nullptr };
    new QCoreApplication(argc, argv); // lives as long as the process
}

inline void drainEvents()
{
    QCoreApplication::sendPostedEvents(nullptr, 0); // deferred deletes included
    QCoreApplication::processEvents();
}

} // namespace reconscope::fuzz
