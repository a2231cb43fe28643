#include "controller/console/joinedtask.h"

#include <QSemaphore>
#include <QThread>
#include <QThreadPool>
#include <QtTest>

#include <atomic>

using reconscope::controller::console::JoinedTask;

// A JoinedTask runs its work exactly once: on the pool when the pool starts it, else on the
// joining thread, and join() returns only after the work is done.
class TstJoinedTask : public QObject
{
    Q_OBJECT

private slots:
    void runsOnThePoolWhenItIsFree();
    void joiningThreadRunsWorkThePoolHasNotStarted();
    void secondJoinReturnsAtOnce();
};

void TstJoinedTask::runsOnThePoolWhenItIsFree()
{
    QThreadPool pool;
    pool.setMaxThreadCount(1);
    QThread *ranOn = nullptr;
    QSemaphore started;
    JoinedTask task([&] {
        ranOn = QThread::currentThread();
        started.release();
        QThread::msleep(50); // still running when join() is called
    });
    task.start(&pool);
    started.acquire();
    task.join(&pool);
    QVERIFY(ranOn != nullptr);
    QVERIFY(ranOn != QThread::currentThread());
}

void TstJoinedTask::joiningThreadRunsWorkThePoolHasNotStarted()
{
    QThreadPool pool;
    pool.setMaxThreadCount(1);
    QSemaphore release;
    QSemaphore blocking;
    pool.start([&] {
        blocking.release();
        release.acquire(); // holds the pool's only thread
    });
    blocking.acquire();
    QThread *ranOn = nullptr;
    int runs = 0;
    JoinedTask task([&] {
        ranOn = QThread::currentThread();
        ++runs;
    });
    task.start(&pool);
    task.join(&pool); // taken back from the queue and done here, without waiting
    QCOMPARE(ranOn, QThread::currentThread());
    release.release();
    pool.waitForDone();
    QCOMPARE(runs, 1);
}

void TstJoinedTask::secondJoinReturnsAtOnce()
{
    QThreadPool pool;
    std::atomic<int> runs = 0;
    JoinedTask task([&] { ++runs; });
    task.start(&pool);
    task.join(&pool);
    task.join(&pool);
    pool.waitForDone();
    QCOMPARE(runs.load(), 1);
}

QTEST_APPLESS_MAIN(TstJoinedTask)
#include "tst_joinedtask.moc"
