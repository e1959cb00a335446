// SPDX-License-Identifier: GPL-3.0-or-later
// Kernel text and JSON forms, validation, spec resolution and kernel files.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QtTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "convlab/error.h"
#include "convlab/kernel.h"

using namespace convlab;

namespace {

// The message of the convlab::Error that `fn` throws, or "<no error>".
template <class F> QString errorOf(F&& fn)
{
    try {
        fn();
    } catch (const Error& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

bool sameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameValues(const Kernel& a, const Kernel& b)
{
    if (a.width != b.width || a.height != b.height || a.values.size() != b.values.size()) return false;
    for (std::size_t i = 0; i < a.values.size(); ++i)
        if (!sameBits(a.values[i], b.values[i])) return false;
    return true;
}

// Awkward floats: tiny, subnormal, huge, negative, values without short decimal forms.
Kernel randomKernel(int w, int h, std::uint32_t seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exp2(-140, 120);
    Kernel k(w, h, std::vector<float>(std::size_t(w) * h));
    for (float& v : k.values) v = std::ldexp(mant(rng), exp2(rng));
    k.values[0] = 0.1f;
    if (k.values.size() > 1) k.values[1] = std::numeric_limits<float>::denorm_min();
    if (k.values.size() > 2) k.values[2] = -std::numeric_limits<float>::max();
    return k;
}

void writeFile(const QString& path, const QByteArray& data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(data);
}

QByteArray readFile(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestKernel : public QObject {
    Q_OBJECT

private slots:
    // A hostile kernel file nested ~100k levels deep is refused quickly, without a crash.
    void deeplyNestedJsonIsRefused_data()
    {
        QTest::addColumn<QString>("field");
        QTest::newRow("values") << "values";
        QTest::newRow("name") << "name";
        QTest::newRow("anchor") << "anchor";
    }
    void deeplyNestedJsonIsRefused()
    {
        QFETCH(QString, field);
        const int depth = 100000;
        std::string text = "{\"" + field.toStdString() + "\": ";
        text += std::string(depth, '[');
        text += "1";
        text += std::string(depth, ']');
        text += "}";
        QElapsedTimer t;
        t.start();
        try {
            (void)convlab::parseKernelJson(text);
            QFAIL("a 100000-level document was accepted");
        } catch (const convlab::Error& e) {
            QVERIFY2(std::string(e.what()).find("nested") != std::string::npos, e.what());
        }
        QVERIFY2(t.elapsed() < 5000, qPrintable(QString("%1 ms").arg(t.elapsed())));
        // Ordinary nesting (rows of values) still reads.
        QCOMPARE(convlab::parseKernelJson(R"({"values": [[1, 2], [3, 4]]})").kernel.values,
                 (std::vector<float>{1, 2, 3, 4}));
    }

    // A kernel file over kMaxKernelFileBytes is refused before it is read (a sparse 60 MB file:
    // reading it took 1.1 GB before), with the limit in the message.
    void oversizedKernelFileIsRefusedUnread_data()
    {
        QTest::addColumn<QString>("name");
        QTest::newRow("json") << "huge.json";
        QTest::newRow("text") << "huge.txt";
    }
    void oversizedKernelFileIsRefusedUnread()
    {
        QFETCH(QString, name);
        QTemporaryDir dir;
        const QString path = dir.filePath(name);
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"values\": [");
            QVERIFY(f.resize(60 * 1000 * 1000)); // sparse: no disk space used
        }
        try {
            (void)convlab::loadKernelSpec(path.toStdString());
            QFAIL("a 60 MB kernel file was accepted");
        } catch (const convlab::Error& e) {
            const QString msg = QString::fromUtf8(e.what());
            QVERIFY2(msg.contains("too large") && msg.contains("60000000 bytes") &&
                         msg.contains(QString("%1 MiB").arg(convlab::kMaxKernelFileBytes >> 20)),
                     e.what());
        }
        QVERIFY(convlab::kMaxKernelFileBytes >= std::uintmax_t(16) << 20); // above the largest kernel's file
    }

    // Within the size limit, a JSON file of more numbers than a 1025x1025 kernel is refused
    // while it is parsed, and a text file's endless first line is counted without being kept.
    void tooManyValuesAreRefusedWhileParsed()
    {
        std::string json = "{\"values\": [";
        const std::size_t n = 3 * std::size_t(convlab::kMaxKernelSide) * convlab::kMaxKernelSide;
        json.reserve(n * 2 + 16);
        for (std::size_t i = 0; i < n; ++i) json += i ? ",0" : "0";
        json += "], \"size\": [1, 1]}";
        try {
            (void)convlab::parseKernelJson(json);
            QFAIL("3 million values were accepted");
        } catch (const convlab::Error& e) {
            QVERIFY2(QString(e.what()).contains("more than") && QString(e.what()).contains("values"), e.what());
            QVERIFY2(QString(e.what()).contains("1025x1025"), e.what());
        }
        std::string line(2'000'000 * 2, ' ');
        for (std::size_t i = 0; i < line.size(); i += 2) line[i] = '1';
        try {
            (void)convlab::parseKernelText(line);
            QFAIL("a row of 2000000 values was accepted");
        } catch (const convlab::Error& e) {
            QVERIFY2(QString(e.what()).contains("row 1 has 2000000 values"), e.what());
        }
    }

    void sums()
    {
        const Kernel k(2, 2, {1.0f, -2.0f, 3.0f, -4.0f});
        QCOMPARE(k.sum(), -2.0);
        QCOMPARE(k.absSum(), 10.0);
        QCOMPARE(k.ax(), 1);
        QCOMPARE(k.ay(), 1);
    }

    void validate()
    {
        QCOMPARE(errorOf([] { Kernel(2000, 3, std::vector<float>(6000, 1.0f)).validate(); }),
                 QStringLiteral("kernel 2000x3 exceeds the 1025x1025 limit"));
        QVERIFY(errorOf([] { Kernel(0, 3, {}).validate(); }).contains("0x3"));
        QVERIFY(errorOf([] { Kernel(2, 2, {1, 2, 3}).validate(); }).contains("needs 4 values, has 3"));
        const QString nan = errorOf([] { Kernel(3, 2, {1, 2, 3, 4, NAN, 6}).validate(); });
        QVERIFY2(nan.contains("row 2, column 2") && nan.contains("not finite"), qPrintable(nan));
        Kernel anchored(3, 2, std::vector<float>(6, 1.0f));
        anchored.anchorX = 2;
        anchored.anchorY = 1;
        anchored.validate(); // inside: fine
        QCOMPARE(anchored.ax(), 2);
        anchored.anchorY = 2;
        QVERIFY(errorOf([&] { anchored.validate(); }).contains("anchor (2, 2) lies outside the 3x2 kernel"));
        Kernel(kMaxKernelSide, 1, std::vector<float>(kMaxKernelSide, 0.0f)).validate();
    }

    void parseGood_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::addColumn<QList<double>>("values");

        QTest::newRow("spaces and newline") << "1 2 3\n4 5 6" << 3 << 2 << QList<double>{1, 2, 3, 4, 5, 6};
        QTest::newRow("commas and semicolon") << "1,2,3;4,5,6" << 3 << 2 << QList<double>{1, 2, 3, 4, 5, 6};
        QTest::newRow("comma and spaces") << "1 , 2,3 ;  4 ,5, 6" << 3 << 2 << QList<double>{1, 2, 3, 4, 5, 6};
        QTest::newRow("tabs, CRLF") << "1\t2\r\n3\t4\r\n" << 2 << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("fractions") << "1/16 2/16 1/16; 2/16 4/16 2/16; 1/16 2/16 1/16" << 3 << 3
                                   << QList<double>{0.0625, 0.125, 0.0625, 0.125, 0.25, 0.125, 0.0625, 0.125, 0.0625};
        QTest::newRow("signed fractions") << "-3/8 3/-8 +1/4" << 3 << 1 << QList<double>{-0.375, -0.375, 0.25};
        QTest::newRow("comments") << "# blur\n1 2 # first row\n\n3 4\n# end" << 2 << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("exponents") << "1e-3 2.5E+2 -4e0 .5" << 4 << 1 << QList<double>{0.001, 250, -4, 0.5};
        QTest::newRow("signs") << "+1 -2 -0.5 +.25" << 4 << 1 << QList<double>{1, -2, -0.5, 0.25};
        QTest::newRow("1x1") << "7" << 1 << 1 << QList<double>{7};
        QTest::newRow("2x4") << "1 2; 3 4; 5 6; 7 8" << 2 << 4 << QList<double>{1, 2, 3, 4, 5, 6, 7, 8};
        QTest::newRow("trailing separators") << "1, 2, 3,;4, 5, 6,;\n" << 3 << 2 << QList<double>{1, 2, 3, 4, 5, 6};
        QTest::newRow("blank rows") << ";; 1 2 ;;\n\n 3 4;" << 2 << 2 << QList<double>{1, 2, 3, 4};
        QTest::newRow("underflow to zero") << "1e-999 1" << 2 << 1 << QList<double>{0, 1};
    }

    void parseGood()
    {
        QFETCH(QString, text);
        QFETCH(int, width);
        QFETCH(int, height);
        QFETCH(QList<double>, values);
        const Kernel k = parseKernelText(text.toStdString());
        QCOMPARE(k.width, width);
        QCOMPARE(k.height, height);
        QCOMPARE(k.values.size(), std::size_t(values.size()));
        for (qsizetype i = 0; i < values.size(); ++i) QCOMPARE(k.values[i], float(values[i]));
        k.validate();
    }

    void parseBad_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QStringList>("fragments");

        QTest::newRow("empty") << "" << QStringList{"empty kernel"};
        QTest::newRow("only comments") << "  \n# nothing\n ; \n" << QStringList{"empty kernel"};
        QTest::newRow("ragged") << "1 2 3\n4 5" << QStringList{"row 2 has 2 values, row 1 has 3"};
        QTest::newRow("ragged later") << "1 2; 3 4; 5 6 7" << QStringList{"row 3 has 3 values, row 1 has 2"};
        QTest::newRow("word") << "1 2 abc" << QStringList{"row 1, value 3: 'abc' is not a number"};
        QTest::newRow("hex") << "0x10" << QStringList{"row 1, value 1: '0x10' is not a number"};
        QTest::newRow("double sign") << "1; --1" << QStringList{"row 2, value 1: '--1'"};
        QTest::newRow("half exponent") << "1e" << QStringList{"'1e' is not a number"};
        QTest::newRow("bad fraction") << "1/x" << QStringList{"'1/x' is not a number or fraction"};
        QTest::newRow("two slashes") << "1/2/3" << QStringList{"'1/2/3'"};
        QTest::newRow("open fraction") << "1/" << QStringList{"'1/'"};
        QTest::newRow("divide by zero") << "1 2; 3 1/0" << QStringList{"row 2, value 2: '1/0' divides by zero"};
        QTest::newRow("nan") << "nan 1" << QStringList{"row 1, value 1: 'nan'", "not a finite"};
        QTest::newRow("inf") << "1 -inf" << QStringList{"'-inf'", "not a finite"};
        QTest::newRow("overflow") << "1e999" << QStringList{"'1e999'", "not a finite"};
        QTest::newRow("float overflow") << "1e39" << QStringList{"'1e39'", "not a finite"};
        QTest::newRow("empty between commas") << "1,,2" << QStringList{"row 1", "empty value"};
        QTest::newRow("leading comma") << "1 2\n,3 4" << QStringList{"row 2", "empty value"};
        QTest::newRow("too wide") << QString("1 ").repeated(2000) << QStringList{"2000 values", "1025"};
        QTest::newRow("too tall") << QString("1;").repeated(1100) << QStringList{"1025"};
    }

    void parseBad()
    {
        QFETCH(QString, text);
        QFETCH(QStringList, fragments);
        const QString msg = errorOf([&] { parseKernelText(text.toStdString()); });
        for (const QString& f : fragments) QVERIFY2(msg.contains(f), qPrintable(msg + " lacks " + f));
    }

    void toTextForm()
    {
        QCOMPARE(QString::fromStdString(Kernel(2, 2, {1.0f, 0.0625f, -3.0f, 0.1f}).toText()),
                 QStringLiteral("1 0.0625; -3 0.1"));
        QCOMPARE(QString::fromStdString(Kernel(1, 1, {2.5f}).toText()), QStringLiteral("2.5"));
    }

    void toTextRoundTrip_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::newRow("1x1") << 1 << 1;
        QTest::newRow("3x3") << 3 << 3;
        QTest::newRow("7x2") << 7 << 2;
        QTest::newRow("31x31") << 31 << 31;
    }

    void toTextRoundTrip()
    {
        QFETCH(int, width);
        QFETCH(int, height);
        const Kernel k = randomKernel(width, height, 17u + width * 100u + height);
        const Kernel back = parseKernelText(k.toText());
        QVERIFY(sameValues(k, back));
    }

    void jsonRoundTrip()
    {
        KernelSpec spec;
        spec.kernel = randomKernel(5, 3, 99);
        spec.kernel.name = "my \"blur\"";
        spec.kernel.anchorX = 4;
        spec.kernel.anchorY = 0;
        spec.scale = 1.0 / 3.0;
        spec.offset = -128.5;
        spec.normalize = false;
        spec.semantics = Semantics::Correlation;
        const KernelSpec back = parseKernelJson(kernelToJson(spec));
        QVERIFY(sameValues(spec.kernel, back.kernel));
        QCOMPARE(back.kernel.name, spec.kernel.name);
        QCOMPARE(back.kernel.anchorX, 4);
        QCOMPARE(back.kernel.anchorY, 0);
        QCOMPARE(back.scale, spec.scale);
        QCOMPARE(back.offset, spec.offset);
        QCOMPARE(back.normalize, std::optional<bool>(false));
        QVERIFY(back.semantics == Semantics::Correlation);

        // A negative zero stays one (found by the kernel_json fuzzer: "-0" read back as +0).
        KernelSpec zeros;
        zeros.kernel = Kernel(2, 1, {-0.0f, 0.0f});
        const KernelSpec zeroBack = parseKernelJson(kernelToJson(zeros));
        QVERIFY(std::signbit(zeroBack.kernel.values[0]));
        QVERIFY(!std::signbit(zeroBack.kernel.values[1]));

        // Optional fields stay absent.
        KernelSpec bare;
        bare.kernel = Kernel(2, 1, {1.0f, -1.0f});
        const std::string text = kernelToJson(bare);
        QVERIFY(text.find("scale") == std::string::npos && text.find("anchor") == std::string::npos);
        const KernelSpec bareBack = parseKernelJson(text);
        QVERIFY(sameValues(bare.kernel, bareBack.kernel));
        QVERIFY(!bareBack.scale && !bareBack.offset && !bareBack.normalize && !bareBack.semantics);
        QCOMPARE(bareBack.kernel.anchorX, -1);

        // A name that is not valid UTF-8 (a file stem in another encoding) still gives valid JSON.
        bare.kernel.name = "k\xe9";
        QCOMPARE(parseKernelJson(kernelToJson(bare)).kernel.name, std::string("k\xef\xbf\xbd"));
    }

    void jsonForms()
    {
        const KernelSpec flat = parseKernelJson(R"({"size": [3, 2], "values": [1, 2, 3, 4, 5, 6]})");
        QVERIFY(sameValues(flat.kernel, Kernel(3, 2, {1, 2, 3, 4, 5, 6})));
        const KernelSpec fractions =
            parseKernelJson(R"({"name": "b", "size": [3, 1], "values": [["1/4", "1/2", 0.25]],
                                "semantics": "Convolution", "normalize": true})");
        QVERIFY(sameValues(fractions.kernel, Kernel(3, 1, {0.25f, 0.5f, 0.25f})));
        QCOMPARE(fractions.kernel.name, std::string("b"));
        QVERIFY(fractions.semantics == Semantics::Convolution);
        QCOMPARE(fractions.normalize, std::optional<bool>(true));
        const KernelSpec column = parseKernelJson(R"({"values": [[1], [-2], [1]]})");
        QCOMPARE(column.kernel.width, 1);
        QCOMPARE(column.kernel.height, 3);
    }

    void jsonBad_data()
    {
        QTest::addColumn<QString>("json");
        QTest::addColumn<QStringList>("fragments");

        QTest::newRow("syntax") << "{\"values\": [[1, 2]\n  ,, ]}"
                                << QStringList{"malformed", "line 2, column"};
        QTest::newRow("truncated") << "{" << QStringList{"malformed", "column"};
        QTest::newRow("number overflow") << R"({"values": [[1e999]]})" << QStringList{"malformed"};
        QTest::newRow("not object") << "[1, 2]" << QStringList{"must be an object", "array"};
        QTest::newRow("no values") << R"({"size": [1, 1]})" << QStringList{"missing 'values'"};
        QTest::newRow("empty values") << R"({"values": []})" << QStringList{"'values' must be a non-empty list"};
        QTest::newRow("values not list") << R"({"values": 3})" << QStringList{"'values' must be a non-empty list"};
        QTest::newRow("ragged") << R"({"values": [[1, 2], [3]]})"
                                << QStringList{"row 2 of 'values' has 1 values, row 1 has 2"};
        QTest::newRow("mixed rows") << R"({"values": [[1, 2], 3]})" << QStringList{"values[1]", "number"};
        QTest::newRow("flat without size") << R"({"values": [1, 2, 3]})" << QStringList{"needs \"size\""};
        QTest::newRow("flat count") << R"({"size": [2, 2], "values": [1, 2, 3]})"
                                    << QStringList{"has 3 entries", "2x2 needs 4"};
        QTest::newRow("size mismatch") << R"({"size": [3, 2], "values": [[1, 2], [3, 4]]})"
                                       << QStringList{"'size' 3x2 does not match 'values' (2 rows of 2)"};
        QTest::newRow("size type") << R"({"size": [2.5, 1], "values": [1, 2]})" << QStringList{"'size' must be"};
        QTest::newRow("size zero") << R"({"size": [0, 1], "values": [1]})" << QStringList{"'size' must be"};
        QTest::newRow("size limit") << R"({"size": [2000, 1], "values": [1]})"
                                    << QStringList{"kernel 2000x1 exceeds the 1025x1025 limit"};
        QTest::newRow("bad string") << R"({"values": [[1, "x"]]})" << QStringList{"values[0][1] 'x'"};
        QTest::newRow("zero denominator") << R"({"values": [[1, "1/0"]]})" << QStringList{"values[0][1] '1/0'"};
        QTest::newRow("two numbers in string") << R"({"values": [["1 2"]]})" << QStringList{"values[0][0]"};
        QTest::newRow("boolean value") << R"({"values": [[1, true]]})"
                                       << QStringList{"values[0][1]", "boolean"};
        QTest::newRow("float overflow") << R"({"values": [[1e39]]})" << QStringList{"values[0][0]", "not a finite"};
        QTest::newRow("anchor outside") << R"({"values": [[1, 2]], "anchor": [2, 0]})"
                                        << QStringList{"anchor [2, 0] lies outside the 2x1 kernel"};
        QTest::newRow("anchor negative") << R"({"values": [[1]], "anchor": [-1, 0]})"
                                         << QStringList{"'anchor' must be"};
        QTest::newRow("scale type") << R"({"values": [[1]], "scale": "2"})"
                                    << QStringList{"'scale' must be a number"};
        QTest::newRow("normalize type") << R"({"values": [[1]], "normalize": 1})"
                                        << QStringList{"'normalize' must be true or false"};
        QTest::newRow("semantics") << R"({"values": [[1]], "semantics": "flipped"})"
                                   << QStringList{"'semantics' must be", "flipped"};
        QTest::newRow("name type") << R"({"values": [[1]], "name": 3})" << QStringList{"'name' must be a string"};
        QTest::newRow("long value cut") << ("{\"values\": [[1]], \"normalize\": \"" + QString(500, 'x') + "\"}")
                                        << QStringList{"'normalize' must be true or false, got \"xxx", "xxx..."};
        QTest::newRow("unknown field") << R"({"values": [[1]], "sise": [1, 1]})"
                                       << QStringList{"unknown field 'sise'"};
    }

    void jsonBad()
    {
        QFETCH(QString, json);
        QFETCH(QStringList, fragments);
        const QString msg = errorOf([&] { parseKernelJson(json.toStdString()); });
        QVERIFY2(msg.startsWith("kernel JSON"), qPrintable(msg));
        for (const QString& f : fragments) QVERIFY2(msg.contains(f), qPrintable(msg + " lacks " + f));
    }

    void jsonRefusesNonFinite()
    {
        KernelSpec spec;
        spec.kernel = Kernel(1, 1, {INFINITY});
        QVERIFY(errorOf([&] { kernelToJson(spec); }).contains("not finite"));
        spec.kernel = Kernel(1, 1, {1.0f});
        spec.scale = NAN;
        QVERIFY(errorOf([&] { kernelToJson(spec); }).contains("scale"));
    }

    void loadSpecPresetAndInline()
    {
        const KernelSpec g = loadKernelSpec("preset:gaussian:sigma=2.5,size=15");
        QCOMPARE(g.kernel.width, 15);
        QCOMPARE(g.kernel.height, 15);
        QCOMPARE(g.kernel.name, std::string("gaussian"));
        QCOMPARE(loadKernelSpec("  preset:box  ").kernel.values, std::vector<float>(9, 1.0f / 9.0f));
        QVERIFY(errorOf([] { loadKernelSpec("preset:nope"); }).contains("unknown preset 'nope'"));
        QVERIFY(errorOf([] { loadKernelSpec("preset:box:sise=3"); }).contains("sise"));

        const KernelSpec inl = loadKernelSpec("1 2 1; 2 4 2; 1 2 1");
        QVERIFY(sameValues(inl.kernel, Kernel(3, 3, {1, 2, 1, 2, 4, 2, 1, 2, 1})));
        QVERIFY(!inl.scale);
        QCOMPARE(loadKernelSpec("1/16").kernel.values, std::vector<float>{0.0625f});
        QVERIFY(errorOf([] { loadKernelSpec("1 2 x"); }).contains("'x' is not a number"));
        QVERIFY(errorOf([] { loadKernelSpec("1/x"); }).contains("'1/x' is not a number"));
        QVERIFY(errorOf([] { loadKernelSpec("   "); }).contains("empty kernel spec"));

        const KernelSpec inlineJson = loadKernelSpec(R"( {"values": [[1, 2]], "anchor": [0, 0]} )");
        QCOMPARE(inlineJson.kernel.width, 2);
        QCOMPARE(inlineJson.kernel.anchorX, 0);
        QVERIFY(errorOf([] { loadKernelSpec("{\"values\": 1}"); }).startsWith("kernel JSON"));
    }

    void loadSpecMissingFile_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::newRow("json") << "nothing-here.json";
        QTest::newRow("txt") << "NOTHING.TXT";
        QTest::newRow("relative") << "kernels/blur";
        QTest::newRow("absolute") << "/nonexistent/k";
        QTest::newRow("dot") << "./k5";
    }

    void loadSpecMissingFile()
    {
        QFETCH(QString, spec);
        QCOMPARE(errorOf([&] { loadKernelSpec(spec.toStdString()); }),
                 "kernel file '" + spec + "' not found");
    }

    void loadSpecFiles()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString json = dir.filePath("edge.json");
        writeFile(json, R"({"values": [[0, 1, 0], [1, -4, 1], [0, 1, 0]], "scale": 0.5, "semantics": "correlation"})");
        const KernelSpec j = loadKernelSpec(json.toStdString());
        QVERIFY(sameValues(j.kernel, Kernel(3, 3, {0, 1, 0, 1, -4, 1, 0, 1, 0})));
        QCOMPARE(j.kernel.name, std::string("edge")); // the file stem when the document has no name
        QCOMPARE(j.scale, std::optional<double>(0.5));
        QVERIFY(j.semantics == Semantics::Correlation);

        const QString text = dir.filePath("blur.txt");
        writeFile(text, "# a blur\n1 2 1\n2 4 2\n1 2 1\n");
        const KernelSpec t = loadKernelSpec(text.toStdString());
        QCOMPARE(t.kernel.width, 3);
        QCOMPARE(t.kernel.sum(), 16.0);
        QCOMPARE(t.kernel.name, std::string("blur"));

        const QString plain = dir.filePath("k5");
        writeFile(plain, "1 1 1 1 1");
        QCOMPARE(loadKernelSpec(plain.toStdString()).kernel.width, 5);

        const QString bad = dir.filePath("bad.txt");
        writeFile(bad, "1 2\n3\n");
        const QString msg = errorOf([&] { loadKernelSpec(bad.toStdString()); });
        QVERIFY2(msg.contains("kernel file '" + bad + "'") && msg.contains("row 2 has 1 values"), qPrintable(msg));

        const QString badJson = dir.filePath("bad.json");
        writeFile(badJson, "{\"values\": [[1,]]}");
        const QString jmsg = errorOf([&] { loadKernelSpec(badJson.toStdString()); });
        QVERIFY2(jmsg.contains("bad.json") && jmsg.contains("malformed"), qPrintable(jmsg));

        QVERIFY(errorOf([&] { loadKernelSpec(dir.path().toStdString()); }).contains("not a regular file"));
    }

    void saveRoundTrip()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        KernelSpec spec;
        spec.kernel = randomKernel(4, 3, 7);
        spec.kernel.name = "random";
        spec.kernel.anchorX = 0;
        spec.kernel.anchorY = 2;
        spec.scale = 0.125;
        spec.offset = 3;
        spec.normalize = true;
        spec.semantics = Semantics::Correlation;

        const std::string json = dir.filePath("k.json").toStdString();
        saveKernelFile(spec, json);
        const KernelSpec j = loadKernelSpec(json);
        QVERIFY(sameValues(j.kernel, spec.kernel));
        QCOMPARE(j.kernel.name, std::string("random"));
        QCOMPARE(j.kernel.anchorX, 0);
        QCOMPARE(j.kernel.anchorY, 2);
        QCOMPARE(j.scale, spec.scale);
        QCOMPARE(j.offset, spec.offset);
        QCOMPARE(j.normalize, spec.normalize);
        QVERIFY(j.semantics == spec.semantics);

        // Text keeps the values only and says what it dropped.
        const QString txt = dir.filePath("k.txt");
        saveKernelFile(spec, txt.toStdString());
        const KernelSpec t = loadKernelSpec(txt.toStdString());
        QVERIFY(sameValues(t.kernel, spec.kernel));
        QCOMPARE(t.kernel.name, std::string("k"));
        QVERIFY(!t.scale);
        const QByteArray body = readFile(txt);
        QVERIFY(body.startsWith("# random\n"));
        QVERIFY(body.contains("# not kept in a text file: anchor (0, 2), scale 0.125"));
        QCOMPARE(body.count('\n'), 2 + 3);

        // Overwriting replaces the file; no temporaries are left behind.
        spec.kernel = Kernel(1, 1, {2.0f});
        saveKernelFile(spec, txt.toStdString());
        QCOMPARE(loadKernelSpec(txt.toStdString()).kernel.values, std::vector<float>{2.0f});
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 2);
    }

    void saveFailures()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        KernelSpec spec;
        spec.kernel = Kernel(1, 1, {1.0f});
        const QString missing = dir.filePath("no-such-dir/k.txt");
        QVERIFY(errorOf([&] { saveKernelFile(spec, missing.toStdString()); }).contains("no-such-dir"));

        const QString target = dir.filePath("keep.txt");
        writeFile(target, "5\n");
        spec.kernel = Kernel(2, 1, {1.0f, NAN});
        QVERIFY(errorOf([&] { saveKernelFile(spec, target.toStdString()); }).contains("not finite"));
        QCOMPARE(readFile(target), QByteArray("5\n")); // untouched
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);
    }
};

QTEST_APPLESS_MAIN(TestKernel)
#include "test_kernel.moc"
