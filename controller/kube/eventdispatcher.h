#pragma once

namespace reconscope::controller::kube {

// Threads started after this call (the informers', QNetworkAccessManager's, the reflectors'
// pools) run Qt's own event dispatcher instead of GLib's. GLib's writes to the thread's eventfd
// for every event posted to it, also from the thread itself; Qt's writes once until the loop has
// woken. Reading a 50k-object list posts ~160k events between the informer's thread and
// QNetworkAccessManager's (QSslSocket reads 4 KB at a time): with GLib's dispatcher ~163k eventfd
// writes, and the informer spent 5-15 % more CPU.
// Qt reads QT_NO_GLIB when a thread creates its dispatcher, so this sets it (unless the user
// did): call it early in main(), before other threads start. A GUI calls it after constructing
// its QApplication, so that the GUI thread keeps GLib's (which GTK's dialogs and styles use).
void preferQtEventDispatcher();

} // namespace reconscope::controller::kube
