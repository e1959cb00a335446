// SPDX-License-Identifier: GPL-3.0-or-later
// The reference method against a second, independent oracle: OpenCV in double precision.
// The image is padded by copyMakeBorder with the matching border type (every mode, wrap
// included, at any distance), then cv::filter2D correlates; the anchor maps the window.
#include <QtTest>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "convlab/convolve.h"
#include "opencv_border.h"
#include "testutil.h"

using namespace convlab;
using namespace convlab::test;

namespace {


// OpenCV's answer for one plane, following docs/semantics.md (Convolution and correlation,
// Border modes) literally.
cv::Mat opencvPlane(const Image& in, int c, const Kernel& k, Semantics sem, const Border& b)
{
    cv::Mat src(in.height, in.width, CV_32F, const_cast<float*>(in.plane(c)));
    cv::Mat src64;
    src.convertTo(src64, CV_64F);
    // Correlation form: flip for convolution, anchor mirrored.
    cv::Mat kern(k.height, k.width, CV_64F);
    for (int v = 0; v < k.height; ++v)
        for (int u = 0; u < k.width; ++u) kern.at<double>(v, u) = k.at(v, u);
    int ax = k.ax(), ay = k.ay();
    if (sem == Semantics::Convolution) {
        cv::flip(kern, kern, -1);
        ax = k.width - 1 - ax;
        ay = k.height - 1 - ay;
    }
    cv::Mat padded;
    cv::copyMakeBorder(src64, padded, ay, k.height - 1 - ay, ax, k.width - 1 - ax, cvBorderType(b.mode),
                       cv::Scalar::all(b.value));
    cv::Mat filtered;
    cv::filter2D(padded, filtered, CV_64F, kern, cv::Point(ax, ay), 0.0, cv::BORDER_CONSTANT);
    return filtered(cv::Rect(ax, ay, in.width, in.height)).clone();
}

} // namespace

class TestOpencvOracle : public QObject {
    Q_OBJECT
private slots:
    void referenceMatchesOpenCV_data()
    {
        QTest::addColumn<int>("w");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("kw");
        QTest::addColumn<int>("kh");
        QTest::addColumn<int>("ax");
        QTest::addColumn<int>("ay");
        const int cases[][6] = {
            {1, 1, 1, 1, -1, -1}, {1, 1, 3, 3, -1, -1}, {7, 1, 3, 3, -1, -1}, {1, 6, 5, 2, -1, -1},
            {5, 4, 3, 3, -1, -1}, {17, 13, 5, 5, -1, -1}, {16, 9, 4, 2, -1, -1}, {16, 9, 4, 2, 0, 1},
            {11, 7, 2, 6, 1, 5},  {3, 4, 9, 11, -1, -1}, {6, 5, 13, 13, 2, 9}, {29, 23, 7, 3, -1, -1},
        };
        for (const auto& c : cases)
            QTest::addRow("%dx%d k%dx%d a%d,%d", c[0], c[1], c[2], c[3], c[4], c[5])
                << c[0] << c[1] << c[2] << c[3] << c[4] << c[5];
    }
    void referenceMatchesOpenCV()
    {
        QFETCH(int, w);
        QFETCH(int, h);
        QFETCH(int, kw);
        QFETCH(int, kh);
        QFETCH(int, ax);
        QFETCH(int, ay);
        const Image in = randomImage(w, h, 3, 40u + w * h);
        Kernel k = randomKernel(kw, kh, KernelKind::Dense, 9u + kw);
        k.anchorX = ax;
        k.anchorY = ay;
        int compared = 0;
        for (const BorderModeInfo& mode : borderModes()) {
            if (cvBorderType(mode.mode) < 0) {
                qInfo("%s: no OpenCV border type to compare with (the table's flag: %s)", mode.name,
                      mode.opencv ? mode.opencv : "none");
                continue;
            }
            for (Semantics sem : {Semantics::Convolution, Semantics::Correlation}) {
                ConvolveParams p;
                p.kernel = k;
                p.border = {mode.mode, -12.5f};
                p.semantics = sem;
                p.method = Method::Reference;
                const Image got = convolve(in, p);
                Image want(w, h, 3);
                for (int c = 0; c < 3; ++c) {
                    const cv::Mat cvOut = opencvPlane(in, c, k, sem, p.border);
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) want.at(c, y, x) = float(cvOut.at<double>(y, x));
                }
                const double err = relativeError(got, want, k, in);
                QVERIFY2(err <= 1e-6, // docs/semantics.md, Tolerances: reference against OpenCV
                         qPrintable(QString("%1 %2: relative error %3")
                                        .arg(mode.name, sem == Semantics::Convolution ? "conv" : "corr")
                                        .arg(err)));
                ++compared;
            }
        }
        QVERIFY2(compared > 0, "no border mode of the table has an OpenCV border type");
    }
};

QTEST_APPLESS_MAIN(TestOpencvOracle)
#include "test_opencv_oracle.moc"
