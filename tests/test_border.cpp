// SPDX-License-Identifier: GPL-3.0-or-later
// Border rules of docs/semantics.md, Border modes: the index maths, the padding built on it,
// and the names.
#include <QtTest>

#include <vector>

#include "convlab/border.h"
#include "convlab/convolve.h"
#include "convlab/error.h"
#include "rowcache.h"

using namespace convlab;

namespace {

// Independent model of reflect/mirror: walk away from the image, bouncing off the edges.
int bounce(long long p, int n, bool repeatEdge)
{
    if (n == 1) return 0;
    long long q = p;
    int guard = 0;
    while ((q < 0 || q >= n) && guard++ < 100000) {
        if (q < 0) q = repeatEdge ? -q - 1 : -q;
        if (q >= n) q = repeatEdge ? 2LL * n - 1 - q : 2LL * n - 2 - q;
    }
    return static_cast<int>(q);
}

} // namespace

class TestBorder : public QObject {
    Q_OBJECT
private slots:
    void tableExamples()
    {
        // n = 4, "abcd": the strings of the table in docs/semantics.md, Border modes.
        const int n = 4;
        auto row = [&](BorderMode m) {
            QString s;
            for (int p = -3; p < n + 3; ++p) {
                const int i = borderIndex(p, n, m);
                s += i < 0 ? QChar('#') : QChar('a' + i);
            }
            return s;
        };
        QCOMPARE(row(BorderMode::Reflect), QStringLiteral("cbaabcddcb"));
        QCOMPARE(row(BorderMode::Mirror), QStringLiteral("dcbabcdcba"));
        QCOMPARE(row(BorderMode::Replicate), QStringLiteral("aaaabcdddd"));
        QCOMPARE(row(BorderMode::Wrap), QStringLiteral("bcdabcdabc"));
        QCOMPARE(row(BorderMode::Constant), QStringLiteral("###abcd###"));
    }

    void periodicAtAnyDistance_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {1, 2, 3, 4, 7, 16}) QTest::addRow("n=%d", n) << n;
    }
    void periodicAtAnyDistance()
    {
        QFETCH(int, n);
        for (long long p = -60; p <= 60; ++p) {
            QCOMPARE(borderIndex(p, n, BorderMode::Reflect), bounce(p, n, true));
            QCOMPARE(borderIndex(p, n, BorderMode::Mirror), bounce(p, n, false));
            QCOMPARE(borderIndex(p, n, BorderMode::Wrap), int(((p % n) + n) % n));
            QCOMPARE(borderIndex(p, n, BorderMode::Replicate), int(std::clamp<long long>(p, 0, n - 1)));
            QCOMPARE(borderIndex(p, n, BorderMode::Constant), (p >= 0 && p < n) ? int(p) : -1);
        }
        // Far away: the rules are periodic extensions.
        const long long far = 1000000007LL;
        QCOMPARE(borderIndex(far * 2 * n + 1, n, BorderMode::Reflect), borderIndex(1, n, BorderMode::Reflect));
        QCOMPARE(borderIndex(-far * n - 1, n, BorderMode::Wrap), n - 1);
        if (n > 1)
            QCOMPARE(borderIndex(-far * (2 * n - 2) + 1, n, BorderMode::Mirror), 1);
        else
            QCOMPARE(borderIndex(-far, n, BorderMode::Mirror), 0);
    }

    void paddedRowsMatchIndexRule_data()
    {
        QTest::addColumn<int>("mode");
        for (int m = 0; m < 5; ++m) QTest::addRow("%s", borderName(BorderMode(m)).c_str()) << m;
    }
    // The padded rows every spatial method reads, margins wider than the image included.
    void paddedRowsMatchIndexRule()
    {
        QFETCH(int, mode);
        const Border b{BorderMode(mode), -7.5f};
        const std::pair<int, int> sizes[] = {{1, 1}, {1, 5}, {3, 2}, {5, 4}};
        for (auto [w, h] : sizes) {
            std::vector<float> src(w * h);
            for (int i = 0; i < w * h; ++i) src[i] = float(i + 1);
            const int top = 6, bottom = 3, left = 7, right = 2;
            for (int ring : {1, 3}) {
                detail::PaddedRows rows(w, h, b, top, left, right, ring);
                rows.reset(src.data());
                QCOMPARE(rows.paddedWidth(), w + left + right);
                for (int y = 0; y < h + top + bottom; ++y) {
                    const float* row = rows.row(y);
                    for (int x = 0; x < w + left + right; ++x) {
                        const int sy = borderIndex(y - top, h, b.mode), sx = borderIndex(x - left, w, b.mode);
                        QCOMPARE(row[x], (sy < 0 || sx < 0) ? b.value : src[sy * w + sx]);
                    }
                }
            }
        }
    }

    void names_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("mode");
        QTest::addColumn<float>("value");
        const struct { const char* t; BorderMode m; float v; } rows[] = {
            {"constant", BorderMode::Constant, 0.0f}, {"constant:0.5", BorderMode::Constant, 0.5f},
            {"CONSTANT=-3", BorderMode::Constant, -3.0f}, {"BORDER_CONSTANT", BorderMode::Constant, 0.0f},
            {"replicate", BorderMode::Replicate, 0}, {"nearest", BorderMode::Replicate, 0},
            {"clamp", BorderMode::Replicate, 0}, {"BORDER_REPLICATE", BorderMode::Replicate, 0},
            {"reflect", BorderMode::Reflect, 0}, {"symmetric", BorderMode::Reflect, 0},
            {"BORDER_REFLECT", BorderMode::Reflect, 0}, {"mirror", BorderMode::Mirror, 0},
            {"reflect101", BorderMode::Mirror, 0}, {"BORDER_REFLECT_101", BorderMode::Mirror, 0},
            {"wrap", BorderMode::Wrap, 0}, {"grid-wrap", BorderMode::Wrap, 0},
            {"circular", BorderMode::Wrap, 0}, {"periodic", BorderMode::Wrap, 0},
            {"BORDER_WRAP", BorderMode::Wrap, 0}, {"loop", BorderMode::Wrap, 0},
        };
        for (const auto& r : rows) QTest::newRow(r.t) << QString(r.t) << int(r.m) << r.v;
    }
    void names()
    {
        QFETCH(QString, text);
        QFETCH(int, mode);
        QFETCH(float, value);
        const Border b = parseBorder(text.toStdString());
        QCOMPARE(int(b.mode), mode);
        QCOMPARE(b.value, value);
        QCOMPARE(parseBorder(borderName(b.mode)).mode, b.mode);
    }

    void badNames_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("mentions");
        QTest::newRow("unknown") << "bouncy" << "bouncy";
        QTest::newRow("empty") << "" << "border mode";
        QTest::newRow("value on wrap") << "wrap:3" << "takes no value";
        QTest::newRow("bad constant") << "constant:abc" << "abc";
        QTest::newRow("nan constant") << "constant:nan" << "finite";
    }
    void badNames()
    {
        QFETCH(QString, text);
        QFETCH(QString, mentions);
        try {
            parseBorder(text.toStdString());
            QFAIL("no error");
        } catch (const Error& e) {
            QVERIFY2(QString(e.what()).contains(mentions), e.what());
        }
    }

    void methodAndDeviceNames()
    {
        for (Method m : {Method::Auto, Method::Reference, Method::Direct, Method::Separable, Method::Fft})
            QCOMPARE(parseMethod(methodName(m)), m);
        for (Device d : {Device::Auto, Device::Cpu, Device::Cuda}) QCOMPARE(parseDevice(deviceName(d)), d);
        QCOMPARE(parseMethod("FFT"), Method::Fft);
        QVERIFY_THROWS_EXCEPTION(Error, parseMethod("winograd"));
        QVERIFY_THROWS_EXCEPTION(Error, parseDevice("tpu"));
    }
};

QTEST_APPLESS_MAIN(TestBorder)
#include "test_border.moc"
