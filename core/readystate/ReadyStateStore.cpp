#include "readystate/ReadyStateStore.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "guest/ClientKey.h"
#include "guest/GuestSession.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/SaveImage.h"
#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"
#include "readystate/ReadyStateKey.h"

#include <QElapsedTimer>
#include <QLockFile>

#include <libvirt/libvirt.h>

#include <algorithm>
#include <functional>
#include <utility>

namespace sbw {
namespace {

const QLatin1String kMarkerSuffix(".ready");
/// Complete states kept: about 120-250 MB each for 512 MiB sandboxes.
constexpr qsizetype kMostStates = 4;

Expected<StoragePool> openPool(HypervisorConnection& connection)
{
    return StoragePool::open(connection.handle(), isSystemUri(connection.uri()));
}

/// The first `length` bytes of volume `name` from `offset`.
Expected<QByteArray> readBytes(StoragePool& pool, const QString& name, qint64 offset, qint64 length)
{
    QByteArray bytes;
    auto read = pool.download(name, offset, length, [&](QByteArrayView chunk) {
        bytes += chunk;
        return true;
    });
    if (!read)
        return read.error();
    return bytes;
}

} // namespace

Expected<ReadyStateStore::Wanted> ReadyStateStore::wanted(const SandboxOptions& options)
{
    auto made = sandboxInputs(m_connection, options);
    if (!made)
        return made.error();
    ReadyStateInputs inputs;
    inputs.buildId = made->image.buildId;
    inputs.memoryMiB = options.memoryMiB;
    inputs.vcpus = options.vcpus;
    inputs.cpuSharePercent = options.cpuSharePercent;
    inputs.diskBytes = made->disk.bytes;
    inputs.kvm = m_connection.accelerator() == Accelerator::Kvm;
    inputs.clientKey = made->key->kernelParameterValue();
    virConnectGetLibVersion(m_connection.handle(), &inputs.libvirtVersion);
    virConnectGetVersion(m_connection.handle(), &inputs.hypervisorVersion);
    return Wanted{readyStateName(inputs), made->image.hash, made->image.buildId, made->disk.bytes};
}

Expected<SavedSandboxState> ReadyStateStore::obtain(const SandboxOptions& options,
                                                    const std::function<void()>& onBuilding,
                                                    const std::atomic_bool* cancel)
{
    auto want = wanted(options);
    if (!want)
        return want.error();
    if (auto found = find(want.value()))
        return found;
    paths::ensureDir(paths::stateDir());
    QLockFile lock(paths::stateDir() + QLatin1Char('/') + want->name + QLatin1String(".lock"));
    lock.setStaleLockTime(0); // not by age: a builder that died leaves its pid, which marks it stale
    if (!lock.lock())
        return makeError(QStringLiteral("cannot lock the ready state %1").arg(want->name));
    if (auto found = find(want.value())) // another process built it meanwhile
        return found;
    if (onBuilding)
        onBuilding();
    auto built = build(want.value(), options, cancel);
    if (built)
        prune(want.value());
    return built;
}

Expected<SavedSandboxState> ReadyStateStore::find(const Wanted& wanted)
{
    const QString& name = wanted.name;
    auto pool = openPool(m_connection);
    if (!pool)
        return pool.error();
    if (pool->pathOf(name + kMarkerSuffix).isEmpty())
        return makeError(QStringLiteral("no ready state %1").arg(name));
    SavedSandboxState state;
    state.name = name;
    state.saveVolume = name + StoragePool::kSaveSuffix;
    state.overlayPath = pool->pathOf(name + StoragePool::kQcow2Suffix);
    const QString savePath = pool->pathOf(state.saveVolume);
    if (state.overlayPath.isEmpty() || savePath.isEmpty())
        return makeError(QStringLiteral("the ready state %1 is incomplete").arg(name));
    auto header = readBytes(pool.value(), state.saveVolume, 0, save_image::kHeaderBytes);
    if (!header)
        return header.error();
    auto offset = save_image::streamOffset(header.value());
    if (!offset)
        return makeError(QStringLiteral("the ready state %1: %2").arg(name, offset.error().message));
    auto start = readBytes(pool.value(), state.saveVolume, offset.value(), 4);
    if (!start || !save_image::isStreamStart(start.value()))
        return makeError(QStringLiteral("the ready state %1 holds no QEMU migration stream where its header says").arg(name));
    state.streamOffset = offset.value();
    const QByteArray pathUtf8 = savePath.toUtf8();
    char* xml = virDomainSaveImageGetXMLDesc(m_connection.handle(), pathUtf8.constData(), 0);
    if (!xml)
        return virtError(QStringLiteral("cannot read the ready state %1's definition").arg(name));
    state.domainXml = QString::fromUtf8(xml);
    free(xml);
    state.diskBytes = wanted.diskBytes;
    return state;
}

Expected<SavedSandboxState> ReadyStateStore::build(const Wanted& wanted, const SandboxOptions& options,
                                                   const std::atomic_bool* cancel)
{
    const QString& name = wanted.name;
    QElapsedTimer timer;
    timer.start();
    discard(name); // an interrupted build's volumes
    auto pool = openPool(m_connection);
    if (!pool)
        return pool.error();
    auto sandbox = Sandbox::startTemplate(m_connection, options, name);
    if (!sandbox)
        return sandbox.error();
    const auto failed = [&](const QString& why) {
        sandbox.value().reset();
        discard(name);
        return makeError(QStringLiteral("cannot save a ready state for this image and these limits: %1").arg(why));
    };
    if (auto ready = sandbox.value()->waitReady(cancel); !ready)
        return failed(ready.error().message);
    // Python once, so that its files are in the saved page cache.
    ExecRequest warm;
    warm.command = "python3 -c pass";
    warm.timeout = std::chrono::seconds(120);
    if (auto ran = sandbox.value()->session().exec(warm); !ran || ran->exitStatus != 0)
        return failed(QStringLiteral("python3 did not start in the template"));
    auto savePath = pool->createVolume(name + StoragePool::kSaveSuffix);
    if (!savePath)
        return failed(savePath.error().message);
    if (auto saved = sandbox.value()->saveState(savePath.value()); !saved)
        return failed(saved.error().message);
    sandbox.value().reset();
    pool->refresh();
    if (auto marked = pool->createVolume(name + kMarkerSuffix); !marked)
        return failed(marked.error().message);
    qCInfo(lcRun) << "saved ready state" << name << "in" << timer.elapsed() << "ms";
    return find(wanted);
}

void ReadyStateStore::discard(const QString& name)
{
    auto pool = openPool(m_connection);
    if (!pool)
        return;
    // The marker first: a half-deleted state is never taken for a complete one.
    for (const QLatin1String suffix : {kMarkerSuffix, StoragePool::kSaveSuffix, StoragePool::kQcow2Suffix})
        if (auto deleted = pool->deleteVolume(name + suffix); !deleted)
            qCWarning(lcRun) << deleted.error().message;
}

void ReadyStateStore::prune(const Wanted& wanted)
{
    auto pool = openPool(m_connection);
    if (!pool)
        return;
    // Older builds of this recipe: never used again.
    const QString current = QStringLiteral("sbw-state-%1-").arg(wanted.buildId);
    QStringList stale;
    for (const QString& volume : pool->volumeNames(readyStatePrefix(wanted.recipeHash)))
        if (!volume.startsWith(current))
            stale << volume.section(QLatin1Char('.'), 0, 0);
    // Beyond kMostStates complete states (every recipe, every option set), the ones saved
    // longest ago; never the one just saved.
    QList<std::pair<qint64, QString>> complete;
    for (const QString& marker : pool->volumeNames(QStringLiteral("sbw-state-")))
        if (marker.endsWith(kMarkerSuffix) && marker.chopped(kMarkerSuffix.size()) != wanted.name)
            complete.append({pool->modifiedSecs(marker), marker.chopped(kMarkerSuffix.size())});
    std::sort(complete.begin(), complete.end(), std::greater<>());
    for (qsizetype i = kMostStates - 1; i < complete.size(); ++i)
        stale << complete.at(i).second;
    stale.removeDuplicates();
    for (const QString& name : stale) {
        qCInfo(lcRun) << "deleting the ready state" << name << "(an older image build, or past the" << kMostStates
                      << "kept)";
        discard(name);
    }
}

} // namespace sbw
