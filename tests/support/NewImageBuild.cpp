#include "NewImageBuild.h"

#include "base/DataPaths.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>

namespace sbw::test {

NewImageBuild::NewImageBuild(QStringList uris) : m_sharedCache(qgetenv("XDG_CACHE_HOME")), m_uris(std::move(uris))
{
    const QString built = QFileInfo(paths::imagesDir() + QLatin1String("/minimal")).canonicalFilePath();
    const QString folder = m_cache.filePath(QStringLiteral("sandbox-workbench/images/minimal"));
    QFile source(built + QLatin1String("/manifest.json"));
    if (built.isEmpty() || !source.open(QIODevice::ReadOnly) || !QDir().mkpath(folder)) {
        m_image = makeError(QStringLiteral("no minimal image in the shared cache to copy"));
        return;
    }
    for (const char* name : {"vmlinuz", "initrd.img", "rootfs.qcow2"})
        QFile::link(built + QLatin1Char('/') + QLatin1String(name), folder + QLatin1Char('/') + QLatin1String(name));
    QJsonObject manifest = QJsonDocument::fromJson(source.readAll()).object();
    manifest[QLatin1String("built")] = QStringLiteral("new-build-%1").arg(QRandomGenerator::global()->generate());
    QFile copy(folder + QLatin1String("/manifest.json"));
    if (!copy.open(QIODevice::WriteOnly) || copy.write(QJsonDocument(manifest).toJson()) < 0) {
        m_image = makeError(QStringLiteral("cannot write %1").arg(copy.fileName()));
        return;
    }
    copy.close();
    qputenv("XDG_CACHE_HOME", m_cache.path().toUtf8());
    m_image = GuestImage::load(paths::imagesDir(), QStringLiteral("minimal"));
}

NewImageBuild::~NewImageBuild()
{
    if (m_sharedCache.isEmpty())
        qunsetenv("XDG_CACHE_HOME");
    else
        qputenv("XDG_CACHE_HOME", m_sharedCache);
    if (!m_image)
        return;
    for (const QString& uri : m_uris) {
        HypervisorConnection connection(uri);
        if (!connection.ensureOpen())
            continue;
        auto pool = StoragePool::open(connection.handle(), isSystemUri(uri));
        // Its staged files, and a ready state a run saved of it ("sbw-state-<build id>-…").
        if (!pool)
            continue;
        for (const QString& prefix : {m_image->buildId, QStringLiteral("sbw-state-") + m_image->buildId})
            for (const QString& name : pool->volumeNames(prefix))
                pool->deleteVolume(name);
    }
}

qint64 NewImageBuild::totalBytes() const
{
    if (!m_image)
        return 0;
    return QFileInfo(m_image->kernel).size() + QFileInfo(m_image->initrd).size() + QFileInfo(m_image->disk).size();
}

} // namespace sbw::test
