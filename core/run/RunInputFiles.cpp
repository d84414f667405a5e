#include "run/RunInputFiles.h"

#include "guest/SftpClient.h"
#include "run/RunArtifacts.h"

#include <QFile>
#include <QFileInfo>
#include <QHash>

namespace sbw {

Expected<void> checkInputFileName(const QString& label, const QString& name)
{
    static const QStringList scripts{QStringLiteral("main.py"), QStringLiteral("main.sh")};
    if (name.isEmpty() || name == QLatin1String(".") || name == QLatin1String("..") ||
        name.contains(QLatin1Char('/')) || name.contains(QChar(0)))
        return makeError(QStringLiteral("%1 must be a plain file name (no folders, no . or ..)").arg(label));
    if (scripts.contains(name))
        return makeError(QStringLiteral("%1 would replace the script %2; rename it").arg(label, name));
    if (name == QLatin1String("out"))
        return makeError(
            QStringLiteral("%1 would take the place of the out/ folder for artifacts; rename it").arg(label));
    return {};
}

QString inputFilesText(const QList<InputFile>& files)
{
    QStringList parts;
    for (const InputFile& file : files)
        parts << QStringLiteral("%1 (%2)").arg(file.name, byteSizeText(file.size));
    return parts.join(QStringLiteral(", "));
}

Expected<QList<InputFile>> checkInputFiles(const QStringList& hostPaths)
{
    QList<InputFile> files;
    QHash<QString, QString> pathOfName;
    for (const QString& path : hostPaths) {
        const QFileInfo info(path);
        if (!info.exists())
            return makeError(QStringLiteral("input file %1 does not exist").arg(path));
        if (info.isDir())
            return makeError(QStringLiteral("input file %1 is a folder, not a file").arg(path));
        if (!info.isFile())
            return makeError(QStringLiteral("input file %1 is not a regular file").arg(path));
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            return makeError(QStringLiteral("cannot read input file %1: %2").arg(path, file.errorString()));
        const QString name = info.fileName();
        if (auto valid = checkInputFileName(QStringLiteral("input file %1").arg(path), name); !valid)
            return valid.error();
        if (pathOfName.contains(name))
            return makeError(QStringLiteral("input files %1 and %2 have the same name %3; rename one "
                                            "of them")
                                 .arg(pathOfName.value(name), path, name));
        pathOfName.insert(name, path);
        files.append({name, info.size(), info.absoluteFilePath(), {}});
    }
    return files;
}

Expected<void> uploadInputFiles(SftpClient& sftp, const QList<InputFile>& files,
                                const QByteArray& guestFolder)
{
    if (files.isEmpty())
        return {};
    if (!sftp.stat(guestFolder)) {
        if (auto made = sftp.mkdir(guestFolder); !made)
            return makeError(QStringLiteral("cannot upload the input files: %1").arg(made.error().message));
    }
    for (const InputFile& file : files) {
        const QByteArray target = guestFolder + '/' + QFile::encodeName(file.name);
        if (auto uploaded = sftp.upload(file.hostPath, target); !uploaded)
            return makeError(QStringLiteral("cannot upload input file %1: %2")
                                 .arg(file.name, uploaded.error().message));
    }
    return {};
}

} // namespace sbw
