#include "files/FileEntryText.h"

#include "base/VisibleText.h"

#include <QLocale>

namespace sbw {

namespace {

/// Guest text for one table cell: one line, newlines and tabs written out like every other
/// hidden character.
QString cellText(QString text)
{
    text.replace(QLatin1Char('\n'), QLatin1String("\\n"))
        .replace(QLatin1Char('\t'), QLatin1String("\\t"));
    return makeVisible(text);
}

} // namespace

QString fileNameText(const QByteArray& name)
{
    return visibleName(name);
}

QString fileModeText(quint32 mode)
{
    QString text(10, QLatin1Char('-'));
    switch (mode & 0170000) {
    case 0040000:
        text[0] = QLatin1Char('d');
        break;
    case 0120000:
        text[0] = QLatin1Char('l');
        break;
    case 0020000:
        text[0] = QLatin1Char('c');
        break;
    case 0060000:
        text[0] = QLatin1Char('b');
        break;
    case 0010000:
        text[0] = QLatin1Char('p');
        break;
    case 0140000:
        text[0] = QLatin1Char('s');
        break;
    default:
        break;
    }
    const char* letters = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i) {
        if (mode & (0400u >> i))
            text[i + 1] = QLatin1Char(letters[i]);
    }
    const auto special = [&](int position, quint32 bit, char set, char setWithoutExec) {
        if (mode & bit)
            text[position] = QLatin1Char(text[position] == QLatin1Char('x') ? set : setWithoutExec);
    };
    special(3, 04000, 's', 'S');
    special(6, 02000, 's', 'S');
    special(9, 01000, 't', 'T');
    return text;
}

QString fileSizeText(const SftpEntry& entry)
{
    return entry.type == SftpEntry::Type::Directory ? QString()
                                                    : QLocale().formattedDataSize(entry.size);
}

QString fileModifiedText(const SftpEntry& entry)
{
    return QLocale().toString(entry.mtime.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm"));
}

QString fileOwnerText(const SftpEntry& entry)
{
    const QString user = entry.owner.isEmpty() ? QString::number(entry.uid) : cellText(entry.owner);
    const QString group =
        entry.group.isEmpty() ? QString::number(entry.gid) : cellText(entry.group);
    return user + QLatin1Char(':') + group;
}

FileListingKey FileListingKey::of(const SftpEntry& entry)
{
    return {entry.type == SftpEntry::Type::Directory, QString::fromUtf8(entry.name).toCaseFolded(),
            entry.name};
}

bool FileListingKey::operator<(const FileListingKey& other) const
{
    if (folder != other.folder)
        return folder;
    if (const int byName = foldedName.compare(other.foldedName); byName != 0)
        return byName < 0;
    return name < other.name;
}

} // namespace sbw
