// SPDX-License-Identifier: GPL-3.0-or-later
// Border rules of docs/semantics.md, Border modes: the index maths, the padding built on it,
// the names, and the tables of convlab/modes.h that every list of modes and methods reads.
#include <QtTest>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "convlab/border.h"
#include "convlab/convolve.h"
#include "convlab/error.h"
#include "convlab/modes.h"
#include "methods/rowcache.h"

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

// Independent model of every rule, written from the table of docs/semantics.md. Every
// enumerator is named (no default) so that -Wswitch asks for the model of a new mode.
int modelIndex(long long p, int n, BorderMode mode)
{
    if (p >= 0 && p < n) return static_cast<int>(p);
    switch (mode) {
    case BorderMode::Constant: return -1;
    case BorderMode::Replicate: return int(std::clamp<long long>(p, 0, n - 1));
    case BorderMode::Reflect: return bounce(p, n, true);
    case BorderMode::Mirror: return bounce(p, n, false);
    case BorderMode::Wrap: return int(((p % n) + n) % n);
    }
    return -2; // not a mode: fails every comparison
}

// The spellings parseBorder and parseMethod must accept for a table name: as written, upper
// case, and with '_' written as '-' and as ' '.
QStringList spellings(const char* name)
{
    const QString s = QString::fromUtf8(name);
    QStringList out{s, s.toUpper()};
    if (s.contains('_')) out << QString(s).replace('_', '-') << QString(s).replace('_', ' ');
    return out;
}

} // namespace

class TestBorder : public QObject {
    Q_OBJECT
private slots:
    void tableExamples_data()
    {
        QTest::addColumn<int>("mode");
        for (const BorderModeInfo& m : borderModes()) QTest::addRow("%s", m.name) << int(m.mode);
    }
    // n = 4, "abcd", p = -3..6: the strings of the table in docs/semantics.md, Border modes,
    // as the table of modes.h gives them.
    void tableExamples()
    {
        QFETCH(int, mode);
        const BorderModeInfo& info = borderModeInfo(BorderMode(mode));
        const int n = 4;
        QString s;
        for (int p = -3; p < n + 3; ++p) {
            const int i = borderIndex(p, n, info.mode);
            s += i < 0 ? QChar('#') : QChar('a' + i);
        }
        QCOMPARE(s, QString::fromUtf8(info.example));
        // The rule's pattern, when it shows one, is the middle of the example: "cba|abcd|dcb".
        const QString rule = QString::fromUtf8(info.rule);
        if (rule.contains('|'))
            QVERIFY2(rule.endsWith(s.mid(0, 3) + '|' + s.mid(3, 4) + '|' + s.mid(7, 3)), qPrintable(rule));
    }

    void periodicAtAnyDistance_data()
    {
        QTest::addColumn<int>("n");
        for (int n : {1, 2, 3, 4, 7, 16}) QTest::addRow("n=%d", n) << n;
    }
    void periodicAtAnyDistance()
    {
        QFETCH(int, n);
        for (const BorderModeInfo& m : borderModes())
            for (long long p = -60; p <= 60; ++p)
                QVERIFY2(borderIndex(p, n, m.mode) == modelIndex(p, n, m.mode),
                         qPrintable(QStringLiteral("%1 at p = %2").arg(m.name).arg(p)));
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
        for (const BorderModeInfo& m : borderModes()) QTest::addRow("%s", m.name) << int(m.mode);
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

    void rowWindowReadsThePaddedRows_data() { paddedRowsMatchIndexRule_data(); }
    // The window the direct and separable methods read: its spans cover every output exactly
    // once and each tap reads the padded row's value, whether the rows are read in place (three
    // spans, each at least a vector wide: images of 48 columns and more here) or copied (one span:
    // narrower images, 8-bit samples).
    void rowWindowReadsThePaddedRows()
    {
        QFETCH(int, mode);
        const Border b{BorderMode(mode), -7.5f};
        const std::pair<int, int> sizes[] = {{1, 1}, {1, 5}, {3, 2}, {9, 4}, {10, 3}, {11, 2}, {37, 5}, {47, 3}, {48, 3}, {49, 2}, {70, 4}};
        const int top = 6, bottom = 3, left = 7, right = 2, kw = left + right + 1;
        for (auto [w, h] : sizes) {
            Image img(w, h, 1);
            for (int i = 0; i < w * h; ++i) img.data[i] = float(i % 250 + 1); // 8-bit samples too
            PackedImage packed; // the same values as 8-bit samples
            packed.width = w;
            packed.height = h;
            packed.channels = 1;
            packed.stride = static_cast<std::size_t>(w);
            for (float v : img.data) packed.bytes.push_back(static_cast<std::uint8_t>(v));
            const ImagePlanes planes(img);
            for (bool fromPacked : {false, true}) {
                const int ring = 4;
                detail::RowWindow window(w, h, b, top, left, right, ring);
                window.reset(fromPacked ? nullptr : &planes, fromPacked ? &packed : nullptr, 0);
                for (int r0 = 0; r0 + ring <= h + top + bottom; ++r0) {
                    std::vector<int> covered(w, 0);
                    const auto spans = window.spans(r0, ring);
                    QCOMPARE(spans.size(), std::size_t(!fromPacked && w >= 48 ? 3 : 1));
                    for (const detail::RowSpan& s : spans) {
                        for (int i = 0; i < s.n; ++i) {
                            const int x = s.x0 + i;
                            QVERIFY(x >= 0 && x < w);
                            ++covered[x];
                            for (int v = 0; v < ring; ++v)
                                for (int u = 0; u < kw; ++u) {
                                    const int sy = borderIndex(r0 + v - top, h, b.mode);
                                    const int sx = borderIndex(x + u - left, w, b.mode);
                                    const float want = (sy < 0 || sx < 0) ? b.value : img.data[sy * w + sx];
                                    if (s.rows[v][i + u] != want)
                                        QFAIL(qPrintable(QString("%1x%2 packed=%3 row %4 x %5 tap %6: %7, want %8")
                                                             .arg(w).arg(h).arg(fromPacked).arg(r0 + v).arg(x).arg(u)
                                                             .arg(s.rows[v][i + u]).arg(want)));
                                }
                        }
                    }
                    QCOMPARE(std::count(covered.begin(), covered.end(), 1), std::ptrdiff_t(w));
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
        QTest::newRow("constant, colon, nothing") << "constant:" << "nothing after ':'";
        QTest::newRow("constant, equals, nothing") << "constant=" << "nothing after '='";
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
        for (const MethodInfo& m : methods()) QCOMPARE(parseMethod(methodName(m.method)), m.method);
        for (Device d : {Device::Auto, Device::Cpu, Device::Cuda}) QCOMPARE(parseDevice(deviceName(d)), d);
        QCOMPARE(parseMethod("FFT"), Method::Fft);
        QVERIFY_THROWS_EXCEPTION(Error, parseMethod("winograd"));
        QVERIFY_THROWS_EXCEPTION(Error, parseDevice("tpu"));
    }

    // ---- the tables of convlab/modes.h ----

    // Every BorderMode once (the enumeration runs 0..N-1), in the order borderModeList gives.
    // A new enumerator without a row is reported at compile time (-Wswitch in modes.cpp and in
    // modelIndex above); this checks the rows themselves.
    void borderTableIsComplete()
    {
        const auto rows = borderModes();
        QCOMPARE(rows.size(), kBorderModeCount);
        std::set<int> values;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const BorderModeInfo& row = rows[i];
            QVERIFY2(values.insert(int(row.mode)).second, row.name);
            QCOMPARE(borderModeList()[i], row.mode);
            QCOMPARE(&borderModeInfo(row.mode), &row);
            QCOMPARE(borderName(row.mode), std::string(row.name));
            QVERIFY2(std::string(row.example).size() == 10, row.name);
            QVERIFY2(*row.rule != '\0', row.name);
        }
        QCOMPARE(*values.begin(), 0);
        QCOMPARE(*values.rbegin(), int(rows.size()) - 1);
        QVERIFY_THROWS_EXCEPTION(Error, borderModeInfo(BorderMode(int(rows.size()))));
    }

    // parseBorder(name) and parseBorder(alias) give the row's mode, in any spelling it accepts;
    // no spelling belongs to two rows.
    void borderNamesRoundTrip()
    {
        std::set<std::string> seen;
        for (const BorderModeInfo& row : borderModes()) {
            std::vector<const char*> names{row.name};
            names.insert(names.end(), row.aliases.begin(), row.aliases.end());
            for (const char* name : names) {
                QVERIFY2(seen.insert(name).second, name);
                QCOMPARE(normalizedName(name), std::string(name));
                for (const QString& spelt : spellings(name)) {
                    QVERIFY2(findBorderMode(spelt.toStdString()) == &row, qPrintable(spelt));
                    QVERIFY2(parseBorder(spelt.toStdString()).mode == row.mode, qPrintable(spelt));
                }
            }
            // Only a mode that takes a value accepts one.
            const std::string withValue = std::string(row.name) + ":2.5";
            if (row.takesValue) {
                QCOMPARE(parseBorder(withValue).value, 2.5f);
            } else {
                QVERIFY_THROWS_EXCEPTION(Error, parseBorder(withValue));
            }
        }
        QVERIFY(!findBorderMode("bouncy"));
    }

    // The names elsewhere, as the lab and the controls show them: "—" where a library has none.
    void otherLibraryNamesShowEveryLibrary()
    {
        for (const BorderModeInfo& row : borderModes()) {
            const QString text = QString::fromStdString(otherLibraryNames(row));
            const std::pair<const char*, const char*> libraries[] = {
                {"OpenCV", row.opencv}, {"scipy", row.scipy}, {"MATLAB", row.matlab}, {"GIMP", row.gimp}, {"G'MIC", row.gmic}};
            for (const auto& [library, name] : libraries)
                QVERIFY2(text.contains(QStringLiteral("%1 %2").arg(library, name ? QString::fromUtf8(name) : QStringLiteral("\u2014"))),
                         qPrintable(text));
        }
        QVERIFY(QString::fromStdString(otherLibraryNames(borderModeInfo(BorderMode::Mirror))).contains(QStringLiteral("MATLAB \u2014")));
    }

    void methodTableIsComplete()
    {
        const auto rows = methods();
        QCOMPARE(rows.size(), kMethodCount);
        std::set<int> values;
        std::set<std::string> seen;
        double loosestCandidate = 0.0;
        int candidates = 0;
        for (const MethodInfo& row : rows) {
            QVERIFY2(values.insert(int(row.method)).second, row.name);
            QCOMPARE(&methodInfo(row.method), &row);
            QCOMPARE(methodName(row.method), std::string(row.name));
            QVERIFY2(*row.description != '\0', row.name);
            std::vector<const char*> names{row.name};
            names.insert(names.end(), row.aliases.begin(), row.aliases.end());
            for (const char* name : names) {
                QVERIFY2(seen.insert(name).second, name);
                for (const QString& spelt : spellings(name))
                    QVERIFY2(parseMethod(spelt.toStdString()) == row.method, qPrintable(spelt));
            }
            // Every method but auto (a choice among them) names the engine that runs it.
            QVERIFY2((row.engine == nullptr) == (row.method == Method::Auto), row.name);
            if (row.autoCandidate) {
                ++candidates;
                QVERIFY2(row.accuracy != Accuracy::OfItsPick, row.name);
                loosestCandidate = std::max(loosestCandidate, toleranceOf(row.accuracy));
            }
        }
        QCOMPARE(*values.begin(), 0);
        QCOMPARE(*values.rbegin(), int(rows.size()) - 1);
        QVERIFY_THROWS_EXCEPTION(Error, methodInfo(Method(int(rows.size()))));
        QVERIFY(candidates > 0);
        QVERIFY(!findMethod("winograd"));
        // docs/semantics.md, Tolerances.
        QCOMPARE(toleranceOf(methodInfo(Method::Auto).accuracy), loosestCandidate);
        QCOMPARE(toleranceOf(methodInfo(Method::Reference).accuracy), 0.0);
        QCOMPARE(toleranceOf(methodInfo(Method::Direct).accuracy), 1e-6);
        QCOMPARE(toleranceOf(methodInfo(Method::Fft).accuracy), 1e-5);
        QCOMPARE(methods().front().method, Method::Auto); // combos and help list auto first
    }
};

QTEST_APPLESS_MAIN(TestBorder)
#include "test_border.moc"
