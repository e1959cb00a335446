// SPDX-License-Identifier: GPL-3.0-or-later
// The synthetic test chart: deterministic, 8-bit-valued, three distinct channels, any size.
#include <QtTest>

#include <cmath>

#include "convlab/testchart.h"

using namespace convlab;

class TestTestChart : public QObject {
    Q_OBJECT
private slots:
    void shapesAndValues_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        const int sizes[][2] = {{1, 1}, {1, 1000}, {1000, 1}, {17, 9}, {512, 512}, {1024, 768}};
        for (const auto& s : sizes) QTest::addRow("%dx%d", s[0], s[1]) << s[0] << s[1];
    }
    void shapesAndValues()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        const Image chart = makeTestChart(w, h);
        QCOMPARE(chart.width, w);
        QCOMPARE(chart.height, h);
        QCOMPARE(chart.channels, 3);
        QCOMPARE(chart.depth, SampleDepth::U8);
        for (float v : chart.data) {
            QVERIFY(v >= 0.0f && v <= 255.0f);
            QCOMPARE(v, std::round(v)); // integer-valued: 8-bit files round-trip exactly
        }
        QCOMPARE(makeTestChart(w, h).data, chart.data); // deterministic
    }

    void hasStructureAndColour()
    {
        const Image chart = makeTestChart(512, 512);
        // Edges and fine detail: plenty of distinct values and strong neighbour differences.
        int strongSteps = 0;
        for (int y = 0; y < chart.height; ++y)
            for (int x = 1; x < chart.width; ++x)
                strongSteps += std::fabs(chart.at(0, y, x) - chart.at(0, y, x - 1)) > 100.0f;
        QVERIFY(strongSteps > 1000);
        // The channels differ somewhere, so a channel mix-up shows.
        bool rg = false, gb = false;
        for (std::size_t i = 0; i < chart.planeSize(); ++i) {
            rg |= chart.plane(0)[i] != chart.plane(1)[i];
            gb |= chart.plane(1)[i] != chart.plane(2)[i];
        }
        QVERIFY(rg && gb);
    }
};

QTEST_APPLESS_MAIN(TestTestChart)
#include "test_testchart.moc"
