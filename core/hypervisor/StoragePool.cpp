#include "hypervisor/StoragePool.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "hypervisor/VirtError.h"

#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QXmlStreamReader>
#include <QXmlStreamWriter>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <algorithm>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

namespace sbw {
namespace {

struct PoolDeleter
{
    void operator()(virStoragePoolPtr p) const { virStoragePoolFree(p); }
};
struct VolDeleter
{
    void operator()(virStorageVolPtr v) const { virStorageVolFree(v); }
};
struct StreamDeleter
{
    void operator()(virStreamPtr s) const { virStreamFree(s); }
};
using PoolPtr = std::unique_ptr<virStoragePool, PoolDeleter>;
using VolPtr = std::unique_ptr<virStorageVol, VolDeleter>;
using StreamPtr = std::unique_ptr<virStream, StreamDeleter>;

QString poolPath(bool systemConnection)
{
    return systemConnection ? QStringLiteral("/var/lib/libvirt/images/sandbox-workbench")
                            : paths::dataDir() + QLatin1String("/pool");
}

QString poolXml(const QString& path)
{
    QString out;
    QXmlStreamWriter xml(&out);
    xml.writeStartElement(QStringLiteral("pool"));
    xml.writeAttribute(QStringLiteral("type"), QStringLiteral("dir"));
    xml.writeTextElement(QStringLiteral("name"), QLatin1String(StoragePool::kName));
    xml.writeStartElement(QStringLiteral("target"));
    xml.writeTextElement(QStringLiteral("path"), path);
    xml.writeStartElement(QStringLiteral("permissions"));
    xml.writeTextElement(QStringLiteral("mode"), QStringLiteral("0755"));
    xml.writeEndElement();
    xml.writeEndElement();
    xml.writeEndElement();
    return out;
}

/// Volume XML; `backingPath` empty for plain volumes.
QString volumeXml(const QString& name, qint64 capacity, const QString& format,
                  const QString& backingPath = {}, const QString& backingFormat = {})
{
    QString out;
    QXmlStreamWriter xml(&out);
    xml.writeStartElement(QStringLiteral("volume"));
    xml.writeTextElement(QStringLiteral("name"), name);
    xml.writeStartElement(QStringLiteral("capacity"));
    xml.writeAttribute(QStringLiteral("unit"), QStringLiteral("bytes"));
    xml.writeCharacters(QString::number(capacity));
    xml.writeEndElement();
    xml.writeStartElement(QStringLiteral("target"));
    xml.writeEmptyElement(QStringLiteral("format"));
    xml.writeAttribute(QStringLiteral("type"), format);
    xml.writeStartElement(QStringLiteral("permissions"));
    xml.writeTextElement(QStringLiteral("mode"), QStringLiteral("0644"));
    xml.writeEndElement();
    xml.writeEndElement();
    if (!backingPath.isEmpty()) {
        xml.writeStartElement(QStringLiteral("backingStore"));
        xml.writeTextElement(QStringLiteral("path"), backingPath);
        xml.writeEmptyElement(QStringLiteral("format"));
        xml.writeAttribute(QStringLiteral("type"), backingFormat);
        xml.writeEndElement();
    }
    xml.writeEndElement();
    return out;
}

QString volumePath(virStorageVolPtr vol)
{
    char* path = virStorageVolGetPath(vol);
    const QString result = QString::fromUtf8(path);
    free(path);
    return result;
}

PoolPtr lookupPool(virConnectPtr conn)
{
    return PoolPtr(virStoragePoolLookupByName(conn, StoragePool::kName));
}

/// The two ends of a copy within the pool: the pool and volume `source`, with volume `target`
/// deleted to make room for the copy.
struct CopyEnds
{
    PoolPtr pool;
    VolPtr from;
};

Expected<CopyEnds> copyEnds(virConnectPtr conn, StoragePool& storage, const QString& source, const QString& target)
{
    PoolPtr pool = lookupPool(conn);
    if (!pool)
        return virtError(QStringLiteral("storage pool %1 is missing").arg(QLatin1String(StoragePool::kName)));
    const QByteArray sourceUtf8 = source.toUtf8();
    VolPtr from(virStorageVolLookupByName(pool.get(), sourceUtf8.constData()));
    if (!from)
        return virtError(QStringLiteral("cannot find volume %1").arg(source));
    if (auto removed = storage.deleteVolume(target); !removed)
        return removed.error();
    return CopyEnds{std::move(pool), std::move(from)};
}

/// One upload of an image into one host's pool in this process. A run and the pool of
/// pre-booted microVMs may stage the same image on a new host at once; the second waits for
/// the first, which would otherwise upload over the volumes the first is writing.
struct StagingJob
{
    std::mutex mutex;
    std::condition_variable changed;
    qint64 sent = 0;
    qint64 total = 0;
    bool done = false;
};

std::mutex stagingJobsMutex;
std::map<QString, std::shared_ptr<StagingJob>> stagingJobs; ///< by "<connection URI> <build id>"

/// Calls `progress` at the start of an upload and as each tenth of it is passed.
class TenthSteps
{
public:
    explicit TenthSteps(const StagingProgress& progress) : m_progress(progress) {}
    void operator()(qint64 sent, qint64 total)
    {
        const int tenths = total > 0 ? int(sent * 10 / total) : 10;
        if (!m_progress || tenths == m_tenths)
            return;
        m_tenths = tenths;
        m_progress(sent, total);
    }

private:
    const StagingProgress& m_progress;
    int m_tenths = -1;
};

/// Waits until `job` is done, reporting its progress (outside the job's lock).
void follow(StagingJob& job, const StagingProgress& progress)
{
    TenthSteps steps(progress);
    std::unique_lock lock(job.mutex);
    for (;;) {
        const qint64 sent = job.sent;
        const qint64 total = job.total;
        const bool done = job.done;
        lock.unlock();
        if (total > 0)
            steps(sent, total);
        if (done)
            return;
        lock.lock();
        job.changed.wait(lock, [&] { return job.done || job.sent != sent || job.total != total; });
    }
}

QString connectionUri(virConnectPtr conn)
{
    char* uri = virConnectGetURI(conn);
    const QString result = QString::fromUtf8(uri);
    free(uri);
    return result;
}

} // namespace

Expected<StoragePool> StoragePool::open(virConnectPtr conn, bool systemConnection)
{
    PoolPtr pool = lookupPool(conn);
    if (!pool) {
        const QString path = poolPath(systemConnection);
        if (!systemConnection)
            paths::ensureDir(path);
        const QByteArray xml = poolXml(path).toUtf8();
        pool.reset(virStoragePoolDefineXML(conn, xml.constData(), 0));
        if (!pool) {
            // Another workbench process may have defined it in the meantime.
            pool = lookupPool(conn);
            if (!pool)
                return virtError(QStringLiteral("cannot define storage pool %1 at %2")
                                     .arg(QLatin1String(kName), path));
        } else {
            virStoragePoolBuild(pool.get(), 0); // creates the folder; fails harmlessly if it exists
            virStoragePoolSetAutostart(pool.get(), 1);
            qCInfo(lcVirt) << "defined storage pool" << kName << "at" << path;
        }
    }
    if (virStoragePoolIsActive(pool.get()) != 1 && virStoragePoolCreate(pool.get(), 0) < 0
        && virStoragePoolIsActive(pool.get()) != 1)
        return virtError(QStringLiteral("cannot start storage pool %1").arg(QLatin1String(kName)));
    virStoragePoolRefresh(pool.get(), 0);
    return StoragePool(conn);
}

bool StoragePool::hasVolume(const QString& name) const
{
    PoolPtr pool = lookupPool(m_conn);
    const QByteArray utf8 = name.toUtf8();
    return pool && VolPtr(virStorageVolLookupByName(pool.get(), utf8.constData())) != nullptr;
}

QStringList StoragePool::volumeNames(const QString& prefix) const
{
    QStringList names;
    PoolPtr pool = lookupPool(m_conn);
    if (!pool)
        return names;
    virStorageVolPtr* volumes = nullptr;
    const int count = virStoragePoolListAllVolumes(pool.get(), &volumes, 0);
    for (int i = 0; i < count; ++i) {
        const QString name = QString::fromUtf8(virStorageVolGetName(volumes[i]));
        if (name.startsWith(prefix))
            names << name;
        virStorageVolFree(volumes[i]);
    }
    free(volumes);
    return names;
}

Expected<QString> StoragePool::upload(const QString& volume, const QString& filePath,
                                      const std::function<void(qint64)>& sent)
{
    QFile file(filePath);
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read %1: %2").arg(filePath, file.errorString()));
    if (auto removed = deleteVolume(volume); !removed)
        return removed.error();
    PoolPtr pool = lookupPool(m_conn);
    if (!pool)
        return virtError(QStringLiteral("storage pool %1 disappeared").arg(QLatin1String(kName)));
    const QByteArray xml = volumeXml(volume, file.size(), QStringLiteral("raw")).toUtf8();
    VolPtr vol(virStorageVolCreateXML(pool.get(), xml.constData(), 0));
    if (!vol)
        return virtError(QStringLiteral("cannot create volume %1").arg(volume));
    StreamPtr stream(virStreamNew(m_conn, 0));
    if (!stream || virStorageVolUpload(vol.get(), stream.get(), 0, quint64(file.size()), 0) < 0)
        return virtError(QStringLiteral("cannot upload %1 into volume %2").arg(filePath, volume));
    struct Source
    {
        QFile& file;
        const std::function<void(qint64)>& sent;
    } source{file, sent};
    const auto read = [](virStreamPtr, char* bytes, size_t nbytes, void* opaque) -> int {
        auto* from = static_cast<Source*>(opaque);
        const qint64 got = from->file.read(bytes, qint64(nbytes));
        if (got > 0)
            from->sent(got);
        return int(got);
    };
    if (virStreamSendAll(stream.get(), read, &source) < 0 || virStreamFinish(stream.get()) < 0)
        return virtError(QStringLiteral("uploading %1 into volume %2 failed").arg(filePath, volume));
    return volumePath(vol.get());
}

Expected<StagedImage> StoragePool::stage(const GuestImage& image, const StagingProgress& progress)
{
    const QString key = connectionUri(m_conn) + QLatin1Char(' ') + image.buildId;
    std::shared_ptr<StagingJob> job;
    while (!job) {
        std::shared_ptr<StagingJob> other;
        {
            std::lock_guard lock(stagingJobsMutex);
            std::shared_ptr<StagingJob>& slot = stagingJobs[key];
            if (!slot)
                job = slot = std::make_shared<StagingJob>();
            else
                other = slot;
        }
        if (other)
            follow(*other, progress); // then look again: the image is staged, or that upload failed
    }
    TenthSteps steps(progress);
    auto staged = stageOnce(image, [&](qint64 sent, qint64 total) {
        {
            std::lock_guard lock(job->mutex);
            job->sent = sent;
            job->total = total;
        }
        job->changed.notify_all();
        steps(sent, total);
    });
    {
        std::lock_guard lock(stagingJobsMutex);
        stagingJobs.erase(key);
    }
    {
        std::lock_guard lock(job->mutex);
        job->done = true;
    }
    job->changed.notify_all();
    return staged;
}

Expected<StagedImage> StoragePool::stageOnce(const GuestImage& image, const std::function<void(qint64, qint64)>& report)
{
    const QString prefix = image.buildId + QLatin1Char('-');
    const QString marker = image.buildId + QLatin1String(".staged");
    const QString kernelName = prefix + QLatin1String("vmlinuz");
    const QString initrdName = prefix + QLatin1String("initrd.img");
    const QString diskName = prefix + QLatin1String("base.") + image.diskFormat;

    StagedImage staged;
    staged.diskFormat = image.diskFormat;
    staged.diskVirtualSize = image.diskVirtualSize;
    PoolPtr pool = lookupPool(m_conn);
    if (!pool)
        return virtError(QStringLiteral("storage pool %1 is missing").arg(QLatin1String(kName)));
    if (hasVolume(marker)) {
        const auto pathOf = [&](const QString& name) {
            const QByteArray utf8 = name.toUtf8();
            VolPtr vol(virStorageVolLookupByName(pool.get(), utf8.constData()));
            return vol ? volumePath(vol.get()) : QString();
        };
        staged.kernel = pathOf(kernelName);
        staged.initrd = pathOf(initrdName);
        staged.disk = pathOf(diskName);
        if (!staged.kernel.isEmpty() && !staged.initrd.isEmpty() && !staged.disk.isEmpty())
            return staged;
    }

    const qint64 total = QFileInfo(image.kernel).size() + QFileInfo(image.initrd).size() + QFileInfo(image.disk).size();
    qCInfo(lcVirt).noquote() << "staging guest image" << image.recipe << image.buildId << "into the pool of"
                             << connectionUri(m_conn) << QStringLiteral("(%1 MiB)").arg(total >> 20);
    QElapsedTimer took;
    took.start();
    qint64 sent = 0;
    report(sent, total);
    const auto count = [&](qint64 bytes) { report(sent += bytes, total); };
    auto kernel = upload(kernelName, image.kernel, count);
    if (!kernel)
        return kernel.error();
    auto initrd = upload(initrdName, image.initrd, count);
    if (!initrd)
        return initrd.error();
    auto disk = upload(diskName, image.disk, count);
    if (!disk)
        return disk.error();
    const QByteArray markerXml = volumeXml(marker, 0, QStringLiteral("raw")).toUtf8();
    if (!VolPtr(virStorageVolCreateXML(pool.get(), markerXml.constData(), 0)))
        return virtError(QStringLiteral("cannot mark image %1 as staged").arg(image.buildId));
    qCInfo(lcVirt) << "staged" << image.buildId << "in" << took.elapsed() << "ms";
    staged.kernel = kernel.value();
    staged.initrd = initrd.value();
    staged.disk = disk.value();
    return staged;
}

Expected<QString> StoragePool::createOverlay(const QString& name, const StagedImage& base,
                                             qint64 virtualSize)
{
    PoolPtr pool = lookupPool(m_conn);
    if (!pool)
        return virtError(QStringLiteral("storage pool %1 is missing").arg(QLatin1String(kName)));
    const QByteArray xml = volumeXml(name, std::max(base.diskVirtualSize, virtualSize),
                                     QStringLiteral("qcow2"), base.disk,
                                     base.diskFormat)
                               .toUtf8();
    VolPtr vol(virStorageVolCreateXML(pool.get(), xml.constData(), 0));
    if (!vol)
        return virtError(QStringLiteral("cannot create overlay %1").arg(name));
    return volumePath(vol.get());
}

Expected<QString> StoragePool::createOverlayOn(const QString& name, const QString& backingPath,
                                               qint64 virtualSize)
{
    PoolPtr pool = lookupPool(m_conn);
    if (!pool)
        return virtError(QStringLiteral("storage pool %1 is missing").arg(QLatin1String(kName)));
    const QByteArray xml =
        volumeXml(name, virtualSize, QStringLiteral("qcow2"), backingPath, QStringLiteral("qcow2")).toUtf8();
    VolPtr vol(virStorageVolCreateXML(pool.get(), xml.constData(), 0));
    if (!vol)
        return virtError(QStringLiteral("cannot create overlay %1").arg(name));
    return volumePath(vol.get());
}

Expected<QString> StoragePool::createVolume(const QString& name)
{
    PoolPtr pool = lookupPool(m_conn);
    if (!pool)
        return virtError(QStringLiteral("storage pool %1 is missing").arg(QLatin1String(kName)));
    const QByteArray xml = volumeXml(name, 0, QStringLiteral("raw")).toUtf8();
    VolPtr vol(virStorageVolCreateXML(pool.get(), xml.constData(), 0));
    if (!vol)
        return virtError(QStringLiteral("cannot create volume %1").arg(name));
    return volumePath(vol.get());
}

QString StoragePool::pathOf(const QString& name) const
{
    PoolPtr pool = lookupPool(m_conn);
    const QByteArray utf8 = name.toUtf8();
    VolPtr vol(pool ? virStorageVolLookupByName(pool.get(), utf8.constData()) : nullptr);
    return vol ? volumePath(vol.get()) : QString();
}

qint64 StoragePool::modifiedSecs(const QString& name) const
{
    PoolPtr pool = lookupPool(m_conn);
    const QByteArray utf8 = name.toUtf8();
    VolPtr vol(pool ? virStorageVolLookupByName(pool.get(), utf8.constData()) : nullptr);
    char* xml = vol ? virStorageVolGetXMLDesc(vol.get(), 0) : nullptr;
    if (!xml)
        return 0;
    QXmlStreamReader reader{QByteArray(xml)};
    free(xml);
    while (!reader.atEnd()) // the first <mtime> is the target's: "SECONDS.NANOS"
        if (reader.readNext() == QXmlStreamReader::StartElement && reader.name() == QLatin1String("mtime"))
            return reader.readElementText().section(QLatin1Char('.'), 0, 0).toLongLong();
    return 0;
}

void StoragePool::refresh()
{
    if (PoolPtr pool = lookupPool(m_conn))
        virStoragePoolRefresh(pool.get(), 0);
}

Expected<void> StoragePool::download(const QString& name, qint64 offset, qint64 length,
                                     const std::function<bool(QByteArrayView chunk)>& sink)
{
    PoolPtr pool = lookupPool(m_conn);
    const QByteArray utf8 = name.toUtf8();
    VolPtr vol(pool ? virStorageVolLookupByName(pool.get(), utf8.constData()) : nullptr);
    if (!vol)
        return virtError(QStringLiteral("cannot find volume %1").arg(name));
    StreamPtr stream(virStreamNew(m_conn, 0));
    if (!stream || virStorageVolDownload(vol.get(), stream.get(), quint64(offset), quint64(length), 0) < 0)
        return virtError(QStringLiteral("cannot read volume %1").arg(name));
    QByteArray chunk(1 << 20, Qt::Uninitialized);
    int got = 0;
    while ((got = virStreamRecv(stream.get(), chunk.data(), size_t(chunk.size()))) > 0) {
        if (!sink(QByteArrayView(chunk.constData(), got))) {
            virStreamAbort(stream.get());
            return makeError(QStringLiteral("reading volume %1 was stopped").arg(name));
        }
    }
    if (got < 0 || virStreamFinish(stream.get()) < 0) {
        const Error error = virtError(QStringLiteral("reading volume %1 failed").arg(name));
        virStreamAbort(stream.get());
        return error;
    }
    return {};
}

Expected<QString> StoragePool::copyVolume(const QString& source, const QString& target)
{
    auto ends = copyEnds(m_conn, *this, source, target);
    if (!ends)
        return ends.error();
    auto& [pool, from] = ends.value();
    // The new volume's own content is replaced whole by the copy; qcow2 only so that libvirt
    // lists it with its format until the next refresh reads the copied header.
    const QByteArray xml = volumeXml(target, 0, QStringLiteral("qcow2")).toUtf8();
    VolPtr to(virStorageVolCreateXML(pool.get(), xml.constData(), 0));
    if (!to)
        return virtError(QStringLiteral("cannot create volume %1").arg(target));
    StreamPtr down(virStreamNew(m_conn, 0));
    StreamPtr up(virStreamNew(m_conn, 0));
    if (!down || !up || virStorageVolDownload(from.get(), down.get(), 0, 0, 0) < 0 ||
        virStorageVolUpload(to.get(), up.get(), 0, 0, 0) < 0) {
        const Error error = virtError(QStringLiteral("cannot copy volume %1 to %2").arg(source, target));
        deleteVolume(target);
        return error;
    }
    QByteArray chunk(1 << 20, Qt::Uninitialized);
    int got = 0;
    while ((got = virStreamRecv(down.get(), chunk.data(), size_t(chunk.size()))) > 0) {
        for (int sent = 0; sent < got;) {
            const int n = virStreamSend(up.get(), chunk.constData() + sent, size_t(got - sent));
            if (n < 0)
                break;
            sent += n;
        }
    }
    if (got < 0 || virStreamFinish(down.get()) < 0 || virStreamFinish(up.get()) < 0) {
        const Error error = virtError(QStringLiteral("copying volume %1 to %2 failed").arg(source, target));
        virStreamAbort(down.get());
        virStreamAbort(up.get());
        deleteVolume(target);
        return error;
    }
    return volumePath(to.get());
}

Expected<QString> StoragePool::cloneVolume(const QString& source, const QString& target)
{
    auto ends = copyEnds(m_conn, *this, source, target);
    if (!ends)
        return ends.error();
    auto& [pool, from] = ends.value();
    const QByteArray xml = volumeXml(target, 0, QStringLiteral("raw")).toUtf8();
    VolPtr to(virStorageVolCreateXMLFrom(pool.get(), xml.constData(), from.get(), 0));
    if (!to)
        return virtError(QStringLiteral("cannot copy volume %1 to %2").arg(source, target));
    return volumePath(to.get());
}

Expected<void> StoragePool::writeAt(const QString& name, qint64 offset, QByteArrayView bytes)
{
    PoolPtr pool = lookupPool(m_conn);
    const QByteArray utf8 = name.toUtf8();
    VolPtr vol(pool ? virStorageVolLookupByName(pool.get(), utf8.constData()) : nullptr);
    if (!vol)
        return virtError(QStringLiteral("cannot find volume %1").arg(name));
    StreamPtr stream(virStreamNew(m_conn, 0));
    if (!stream || virStorageVolUpload(vol.get(), stream.get(), quint64(offset), quint64(bytes.size()), 0) < 0)
        return virtError(QStringLiteral("cannot write volume %1").arg(name));
    for (qsizetype sent = 0; sent < bytes.size();) {
        const int n = virStreamSend(stream.get(), bytes.data() + sent, size_t(bytes.size() - sent));
        if (n < 0) {
            const Error error = virtError(QStringLiteral("writing volume %1 failed").arg(name));
            virStreamAbort(stream.get());
            return error;
        }
        sent += n;
    }
    if (virStreamFinish(stream.get()) < 0)
        return virtError(QStringLiteral("writing volume %1 failed").arg(name));
    return {};
}

Expected<void> StoragePool::deleteVolume(const QString& name)
{
    // Without its pool or itself the volume is gone; a lookup that failed otherwise (a lost
    // connection) says nothing about it.
    PoolPtr pool = lookupPool(m_conn);
    if (!pool && virGetLastErrorCode() == VIR_ERR_NO_STORAGE_POOL)
        return {};
    if (!pool)
        return virtError(QStringLiteral("cannot delete volume %1").arg(name));
    const QByteArray utf8 = name.toUtf8();
    VolPtr vol(virStorageVolLookupByName(pool.get(), utf8.constData()));
    if (!vol && virGetLastErrorCode() == VIR_ERR_NO_STORAGE_VOL)
        return {};
    if (!vol || virStorageVolDelete(vol.get(), 0) < 0)
        return virtError(QStringLiteral("cannot delete volume %1").arg(name));
    return {};
}

} // namespace sbw
