#include "hypervisor/ConsoleLog.h"

#include "hypervisor/VirtError.h"

#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QXmlStreamReader>
#include <libvirt/libvirt.h>
#include <sys/stat.h>

namespace sbw {
namespace {

constexpr qint64 kChunk = 64 * 1024;

/// The file attribute of <devices><serial><log>, or empty.
QString serialLogFile(const QString& xml)
{
    QXmlStreamReader reader(xml);
    QStringList path;
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement()) {
            path.append(reader.name().toString());
            if (path == QStringList{QStringLiteral("domain"), QStringLiteral("devices"),
                                    QStringLiteral("serial"), QStringLiteral("log")})
                return reader.attributes().value(QStringLiteral("file")).toString();
        } else if (reader.isEndElement()) {
            path.removeLast();
        }
    }
    return {};
}

/// True when `path` names a file other than the one `file` has open (virtlogd rotated it).
bool replaced(const QFile& file, const QString& path)
{
    struct stat opened = {};
    struct stat named = {};
    if (fstat(file.handle(), &opened) != 0 ||
        stat(QFile::encodeName(path).constData(), &named) != 0)
        return false;
    return opened.st_ino != named.st_ino || opened.st_dev != named.st_dev;
}

} // namespace

ConsoleLog::ConsoleLog(QObject* parent) : QObject(parent) {}

Expected<QString> ConsoleLog::pathOf(virConnectPtr conn, const QString& domainName)
{
    const QString what = QStringLiteral("cannot read the console log of %1").arg(domainName);
    if (!conn)
        return makeError(what + QStringLiteral(": not connected to libvirt"));
    virDomainPtr domain = virDomainLookupByName(conn, domainName.toUtf8().constData());
    if (!domain)
        return virtError(what);
    char* xml = virDomainGetXMLDesc(domain, 0);
    virDomainFree(domain);
    if (!xml)
        return virtError(what);
    const QString file = serialLogFile(QString::fromUtf8(xml));
    free(xml);
    return file;
}

Expected<void> ConsoleLog::open(const QString& path)
{
    close();
    m_file.setFileName(path);
    if (!m_file.open(QIODevice::ReadOnly))
        return makeError(
            QStringLiteral("cannot read the console log %1: %2").arg(path, m_file.errorString()));
    // The folder too: a rotation renames the file away, and the new one appears there.
    m_watcher = new QFileSystemWatcher({path, QFileInfo(path).absolutePath()}, this);
    connect(m_watcher, &QFileSystemWatcher::fileChanged, this, &ConsoleLog::readMore);
    connect(m_watcher, &QFileSystemWatcher::directoryChanged, this, &ConsoleLog::readMore);
    readMore();
    return {};
}

void ConsoleLog::close()
{
    if (!m_file.isOpen())
        return;
    readMore();
    delete m_watcher;
    m_watcher = nullptr;
    m_file.close();
}

void ConsoleLog::readMore()
{
    if (!m_file.isOpen())
        return;
    // Shorter than what was read: truncated by a new start of the domain; read it again.
    if (m_file.size() < m_file.pos())
        m_file.seek(0);
    for (;;) {
        const QByteArray bytes = m_file.read(kChunk);
        if (bytes.isEmpty())
            break;
        Q_EMIT received(bytes);
    }
    const QString path = m_file.fileName();
    if (replaced(m_file, path)) {
        m_file.close();
        if (m_file.open(QIODevice::ReadOnly))
            readMore();
    }
    // A rotation renames the watched file away; the watcher then follows the new one.
    if (m_watcher && !m_watcher->files().contains(path) && QFileInfo::exists(path))
        m_watcher->addPath(path);
}

} // namespace sbw
