#include "controller/reconcile/ratelimiter.h"
#include "reconciletestutil.h"

#include <QtTest>

using namespace Qt::StringLiterals;
using namespace std::chrono_literals;
using namespace reconscope::controller::reconcile;

class tst_RateLimiter : public QObject
{
    Q_OBJECT

private slots:
    void exponentialSequence_data();
    void exponentialSequence();
    void exponentialCapIsReachedAtTheNineteenthFailure();
    void exponentialDoesNotOverflow();
    void exponentialForgetResets();
    void exponentialKeysAreIndependent();
    void exponentialCustomBounds();
    void bucketBurstThenRate();
    void bucketRefills();
    void bucketDebtAccumulates();
    void maxOfTakesTheLongest();
    void maxOfForgetAndNumRequeues();
    void defaultControllerLimiter();
};

void tst_RateLimiter::exponentialSequence_data()
{
    QTest::addColumn<int>("failure"); // 1-based: the n-th consecutive failure
    QTest::addColumn<qint64>("expectedMs");
    const qint64 expected[]
        = { 5,    10,    20,    40,    80,    160,    320,    640,    1280,    2560,
            5120, 10240, 20480, 40960, 81920, 163840, 327680, 655360, 1000000, 1000000 };
    for (int n = 1; n <= 20; ++n)
        QTest::addRow("failure %d", n) << n << expected[n - 1];
}

void tst_RateLimiter::exponentialSequence()
{
    QFETCH(int, failure);
    QFETCH(qint64, expectedMs);
    ItemExponentialFailureRateLimiter limiter;
    Duration d{};
    for (int i = 0; i < failure; ++i)
        d = limiter.when(u"default/web"_s, TimePoint{});
    QCOMPARE(d, Duration(std::chrono::milliseconds(expectedMs)));
    QCOMPARE(limiter.numRequeues(u"default/web"_s), failure);
    QCOMPARE(limiter.delayFor(failure - 1), d);
}

void tst_RateLimiter::exponentialCapIsReachedAtTheNineteenthFailure()
{
    ItemExponentialFailureRateLimiter limiter;
    int firstCapped = 0;
    for (int n = 1; n <= 30 && firstCapped == 0; ++n) {
        if (limiter.when(u"k"_s, TimePoint{}) == 1000s)
            firstCapped = n;
    }
    QCOMPARE(firstCapped, 19);
    // The 18th is still below the cap: 5ms * 2^17 = 655.36s.
    QCOMPARE(limiter.delayFor(17), Duration(655'360ms));
}

void tst_RateLimiter::exponentialDoesNotOverflow()
{
    ItemExponentialFailureRateLimiter limiter;
    for (int n = 0; n < 1000; ++n)
        QVERIFY(limiter.when(u"k"_s, TimePoint{}) <= 1000s);
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(1000s));
    QCOMPARE(limiter.delayFor(62), Duration(1000s));
    QCOMPARE(limiter.delayFor(63), Duration(1000s));
    QCOMPARE(limiter.delayFor(100000), Duration(1000s));
    // A cap beyond what 2^n reaches before overflowing.
    ItemExponentialFailureRateLimiter huge(1ns, Duration::max());
    QCOMPARE(huge.delayFor(62), Duration(std::int64_t(1) << 62));
    QCOMPARE(huge.delayFor(63), Duration::max());
}

void tst_RateLimiter::exponentialForgetResets()
{
    ItemExponentialFailureRateLimiter limiter;
    for (int n = 0; n < 5; ++n)
        limiter.when(u"k"_s, TimePoint{});
    QCOMPARE(limiter.numRequeues(u"k"_s), 5);
    limiter.forget(u"k"_s);
    QCOMPARE(limiter.numRequeues(u"k"_s), 0);
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(5ms));
}

void tst_RateLimiter::exponentialKeysAreIndependent()
{
    ItemExponentialFailureRateLimiter limiter;
    limiter.when(u"a"_s, TimePoint{});
    limiter.when(u"a"_s, TimePoint{});
    QCOMPARE(limiter.when(u"b"_s, TimePoint{}), Duration(5ms));
    QCOMPARE(limiter.when(u"a"_s, TimePoint{}), Duration(20ms));
    limiter.forget(u"a"_s);
    QCOMPARE(limiter.numRequeues(u"b"_s), 1);
}

void tst_RateLimiter::exponentialCustomBounds()
{
    ItemExponentialFailureRateLimiter limiter(1s, 5s);
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(1s));
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(2s));
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(4s));
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(5s));
}

void tst_RateLimiter::bucketBurstThenRate()
{
    BucketRateLimiter bucket; // 10 qps, burst 100
    const TimePoint t0 = TimePoint{} + 1000h;
    for (int n = 0; n < 100; ++n)
        QCOMPARE(bucket.when(QString::number(n), t0), Duration::zero());
    // The 101st waits one token (100ms), the 102nd two, regardless of the key.
    QCOMPARE(bucket.when(u"x"_s, t0), Duration(100ms));
    QCOMPARE(bucket.when(u"y"_s, t0), Duration(200ms));
    QCOMPARE(bucket.numRequeues(u"x"_s), 0);
}

void tst_RateLimiter::bucketRefills()
{
    BucketRateLimiter bucket(10, 100);
    const TimePoint t0 = TimePoint{} + 1000h;
    for (int n = 0; n < 100; ++n)
        bucket.when(u"k"_s, t0);
    QCOMPARE(bucket.tokensAt(t0), 0.0);
    // One second later ten tokens are back.
    for (int n = 0; n < 10; ++n)
        QCOMPARE(bucket.when(u"k"_s, t0 + 1s), Duration::zero());
    QCOMPARE(bucket.when(u"k"_s, t0 + 1s), Duration(100ms));
    // The bucket never holds more than the burst.
    QCOMPARE(bucket.tokensAt(t0 + 1h), 100.0);
}

void tst_RateLimiter::bucketDebtAccumulates()
{
    BucketRateLimiter bucket(2, 1);
    const TimePoint t0 = TimePoint{} + 1000h;
    QCOMPARE(bucket.when(u"k"_s, t0), Duration::zero());
    QCOMPARE(bucket.when(u"k"_s, t0), Duration(500ms));
    QCOMPARE(bucket.when(u"k"_s, t0), Duration(1s));
    // 250ms later half a token came back: the debt of 2 tokens is 1.5, and this one makes 2.5.
    QCOMPARE(bucket.when(u"k"_s, t0 + 250ms), Duration(1250ms));
}

void tst_RateLimiter::maxOfTakesTheLongest()
{
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>());
    limiters.push_back(std::make_unique<BucketRateLimiter>(10, 2));
    MaxOfRateLimiter limiter(std::move(limiters));
    const TimePoint t0 = TimePoint{} + 1000h;
    QCOMPARE(limiter.when(u"a"_s, t0), Duration(5ms)); // bucket: 0, per-item: 5ms
    QCOMPARE(limiter.when(u"b"_s, t0), Duration(5ms));
    QCOMPARE(limiter.when(u"c"_s, t0), Duration(100ms)); // bucket exhausted: 100ms > 5ms
    QCOMPARE(limiter.when(u"a"_s, t0), Duration(200ms)); // bucket 200ms > per-item 10ms
}

void tst_RateLimiter::maxOfForgetAndNumRequeues()
{
    std::vector<std::unique_ptr<RateLimiter>> limiters;
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(1ms, 1s));
    limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(2ms, 1s));
    MaxOfRateLimiter limiter(std::move(limiters));
    limiter.when(u"k"_s, TimePoint{});
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(4ms)); // both counted twice
    QCOMPARE(limiter.numRequeues(u"k"_s), 2);
    limiter.forget(u"k"_s);
    QCOMPARE(limiter.numRequeues(u"k"_s), 0);
    QCOMPARE(limiter.when(u"k"_s, TimePoint{}), Duration(2ms));
}

void tst_RateLimiter::defaultControllerLimiter()
{
    const auto limiter = defaultControllerRateLimiter();
    const TimePoint t0 = TimePoint{} + 1000h;
    QCOMPARE(limiter->when(u"k"_s, t0), Duration(5ms));
    QCOMPARE(limiter->when(u"k"_s, t0), Duration(10ms));
    QCOMPARE(limiter->numRequeues(u"k"_s), 2);
    // 98 more keys take the rest of the burst of 100; the next one waits for the bucket.
    for (int n = 0; n < 98; ++n)
        limiter->when(QString::number(n), t0);
    QCOMPARE(limiter->when(u"fresh"_s, t0), Duration(100ms));
    const auto noBucket = defaultControllerRateLimiter(false);
    for (int n = 0; n < 200; ++n)
        noBucket->when(QString::number(n), t0);
    QCOMPARE(noBucket->when(u"fresh"_s, t0), Duration(5ms));
}

QTEST_GUILESS_MAIN(tst_RateLimiter)
#include "tst_ratelimiter.moc"
