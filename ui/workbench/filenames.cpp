// SPDX-License-Identifier: GPL-3.0-or-later
#include "workbench/filenames.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

namespace filenames {

namespace {

bool hasSuffix(const QString& path, const char* suffix)
{
    return QFileInfo(path).suffix().compare(QLatin1String(suffix), Qt::CaseInsensitive) == 0;
}

// A title such as "coffee.png" names an image the way its file did: the extension is no part of
// the name a result is saved under.
QString withoutImageExtension(const QString& name)
{
    static const QRegularExpression ext(QStringLiteral("\\.(png|jpe?g|tiff?|bmp|p[bgpn]m|webp|npy)$"),
                                        QRegularExpression::CaseInsensitiveOption);
    QString out = name;
    out.remove(ext);
    return out;
}

} // namespace

QString kernelJsonFilter() { return QCoreApplication::translate("filenames", "JSON kernel (*.json)"); }

QString kernelTextFilter() { return QCoreApplication::translate("filenames", "Text kernel (*.txt)"); }

QString kernelSavePath(const QString& typed, const QString& selectedFilter)
{
    if (typed.isEmpty() || hasSuffix(typed, "json") || hasSuffix(typed, "txt")) return typed;
    const bool text = selectedFilter == kernelTextFilter();
    return typed + (text ? QStringLiteral(".txt") : QStringLiteral(".json"));
}

bool isJsonKernelPath(const QString& path) { return hasSuffix(path, "json"); }

QString withSuffix(const QString& path, const QString& suffix)
{
    const QFileInfo info(path);
    const QString base = info.suffix().isEmpty() ? info.fileName() : info.completeBaseName();
    // The folder exactly as given (Qt's paths use '/'), relative or not.
    return path.left(path.lastIndexOf(QLatin1Char('/')) + 1) + base + QLatin1Char('.') + suffix;
}

QString sanitizedFileName(const QString& text, const QString& fallback)
{
    QString out;
    for (const QChar c : text) {
        const bool keep = c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_') || c == QLatin1Char('.');
        if (keep)
            out += c;
        else if (!out.endsWith(QLatin1Char('_')))
            out += QLatin1Char('_');
    }
    while (!out.isEmpty() && (out.front() == QLatin1Char('_') || out.front() == QLatin1Char('.'))) out.remove(0, 1);
    while (!out.isEmpty() && (out.back() == QLatin1Char('_') || out.back() == QLatin1Char('.'))) out.chop(1);
    return out.isEmpty() ? fallback : out;
}

QString resultSuggestion(const QString& sourcePath, const QString& sourceTitle, const QString& kernelName)
{
    const QString source = sourcePath.isEmpty() ? withoutImageExtension(sourceTitle)
                                                : QFileInfo(sourcePath).completeBaseName();
    const QString name = sanitizedFileName(source, QStringLiteral("image")) + QLatin1Char('-') +
                         sanitizedFileName(kernelName, QStringLiteral("kernel")) + QStringLiteral(".png");
    return sourcePath.isEmpty() ? name : QFileInfo(sourcePath).dir().filePath(name);
}

QString recentEntryText(const QString& path)
{
    const QFileInfo info(path);
    QString text = QCoreApplication::translate("filenames", "%1 — %2")
                       .arg(info.fileName(), QDir::toNativeSeparators(info.absolutePath()));
    return text.replace(QLatin1Char('&'), QStringLiteral("&&"));
}

} // namespace filenames
