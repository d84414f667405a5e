#include "run/RunArtifacts.h"

#include "base/DataPaths.h"
#include "guest/SftpClient.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <algorithm>

namespace sbw {
namespace {

/// A name the guest reported that is safe to use as one host path component.
bool isPlainName(const QByteArray& name)
{
    return !name.isEmpty() && name != "." && name != ".." && !name.contains('/') && !name.contains('\0');
}

/// "a, b, c and 4 more".
QString someNames(const QStringList& names)
{
    constexpr int kShown = 5;
    QString text = names.mid(0, kShown).join(QStringLiteral(", "));
    if (names.size() > kShown)
        text += QStringLiteral(" and %1 more").arg(names.size() - kShown);
    return text;
}

struct Listed
{
    QByteArray guestPath;
    QString name; ///< relative, '/'-separated
    qint64 size = 0;
};

} // namespace

QString runsFolder()
{
    return paths::dataDir() + QStringLiteral("/runs");
}

QString byteSizeText(qint64 bytes)
{
    if (bytes < 1024)
        return QStringLiteral("%1 bytes").arg(bytes);
    static const char* const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = double(bytes);
    int unit = -1;
    while (value >= 1024 && unit < 3) {
        value /= 1024;
        ++unit;
    }
    return QStringLiteral("%1 %2").arg(value, 0, 'f', 1).arg(QLatin1String(units[unit]));
}

ArtifactCollection collectArtifacts(SftpClient& sftp, const QByteArray& guestFolder,
                                    const QString& hostFolder, const ArtifactCaps& caps)
{
    ArtifactCollection collection;
    QList<Listed> files;
    QStringList notFiles;
    QStringList unreadable;
    // Breadth-first walk; a folder that is missing at the top means no artifacts.
    QList<std::pair<QByteArray, QString>> folders{{guestFolder, QString()}};
    bool top = true;
    while (!folders.isEmpty()) {
        const auto [folder, prefix] = folders.takeFirst();
        auto entries = sftp.listDirectory(folder);
        if (!entries) {
            if (!top)
                unreadable << prefix;
            else if (sftp.stat(guestFolder))
                collection.note = QStringLiteral("the run's out/ folder could not be read: %1")
                                      .arg(entries.error().message);
            top = false;
            continue;
        }
        top = false;
        for (const SftpEntry& entry : entries.value()) {
            const QString name = prefix + QString::fromUtf8(entry.name);
            if (!isPlainName(entry.name)) {
                notFiles << name;
                continue;
            }
            if (entry.type == SftpEntry::Type::Directory)
                folders.append({folder + '/' + entry.name, name + QLatin1Char('/')});
            else if (entry.type == SftpEntry::Type::File)
                files.append({folder + '/' + entry.name, name, entry.size});
            else
                notFiles << name;
        }
    }
    std::sort(files.begin(), files.end(), [](const Listed& a, const Listed& b) { return a.name < b.name; });

    QStringList overCount;
    QStringList overBytes;
    qint64 listedBytes = 0;
    qint64 keptBytes = 0;
    for (const Listed& file : files) {
        listedBytes += file.size;
        if (collection.artifacts.size() >= caps.maxCount) {
            overCount << file.name;
            continue;
        }
        if (keptBytes + file.size > caps.maxBytes) {
            overBytes << file.name;
            continue;
        }
        const QString hostPath = hostFolder + QLatin1Char('/') + file.name;
        if (!QDir().mkpath(QFileInfo(hostPath).absolutePath())) {
            unreadable << file.name;
            continue;
        }
        auto copied = sftp.download(file.guestPath, hostPath, {}, caps.maxBytes - keptBytes);
        const qint64 size = QFileInfo(hostPath).size();
        if (!copied) {
            QFile::remove(hostPath);
            // Grown past what is left of the byte cap while being copied, or unreadable.
            (size > caps.maxBytes - keptBytes ? overBytes : unreadable) << file.name;
            continue;
        }
        keptBytes += size;
        collection.artifacts.append({file.name, size, QFileInfo(hostPath).absoluteFilePath()});
    }

    QStringList parts;
    if (!overCount.isEmpty())
        parts << QStringLiteral("%1 past the cap of %2 files %3 skipped (%4)")
                     .arg(overCount.size())
                     .arg(caps.maxCount)
                     .arg(overCount.size() == 1 ? QStringLiteral("was") : QStringLiteral("were"))
                     .arg(someNames(overCount));
    if (!overBytes.isEmpty())
        parts << QStringLiteral("%1 past the cap of %2 bytes (%3) %4 skipped (%5)")
                     .arg(overBytes.size())
                     .arg(caps.maxBytes)
                     .arg(byteSizeText(caps.maxBytes))
                     .arg(overBytes.size() == 1 ? QStringLiteral("was") : QStringLiteral("were"))
                     .arg(someNames(overBytes));
    if (!unreadable.isEmpty())
        parts << QStringLiteral("%1 could not be copied (%2)").arg(unreadable.size()).arg(someNames(unreadable));
    if (!notFiles.isEmpty())
        parts << QStringLiteral("%1 not regular files %2 left out (%3)")
                     .arg(notFiles.size())
                     .arg(notFiles.size() == 1 ? QStringLiteral("was") : QStringLiteral("were"))
                     .arg(someNames(notFiles));
    if (!parts.isEmpty()) {
        const QString held = QStringLiteral("out/ held %1 files (%2 bytes); %3 came back: ")
                                 .arg(files.size())
                                 .arg(listedBytes)
                                 .arg(collection.artifacts.size());
        collection.note = collection.note.isEmpty() ? held + parts.join(QStringLiteral("; "))
                                                    : collection.note + QStringLiteral("; ") + parts.join(QStringLiteral("; "));
    }
    return collection;
}

QList<RunArtifact> artifactsIn(const QString& hostFolder)
{
    QList<RunArtifact> artifacts;
    const QDir root(hostFolder);
    QDirIterator it(hostFolder, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QFileInfo info(it.next());
        artifacts.append({root.relativeFilePath(info.absoluteFilePath()), info.size(), info.absoluteFilePath()});
    }
    std::sort(artifacts.begin(), artifacts.end(),
              [](const RunArtifact& a, const RunArtifact& b) { return a.name < b.name; });
    return artifacts;
}

} // namespace sbw
