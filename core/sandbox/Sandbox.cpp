#include "sandbox/Sandbox.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "guest/ClientKey.h"
#include "guest/GuestSession.h"
#include "hypervisor/IncomingMigration.h"
#include "hypervisor/SaveImage.h"
#include "hypervisor/VirtioSerialBridge.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"
#include "sandbox/CloneDomainXml.h"
#include "sandbox/GuestFreshening.h"
#include "sandbox/RunLease.h"
#include "sandbox/SandboxLimits.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QThread>
#include <QTimeZone>
#include <QUuid>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

namespace sbw {
namespace {

const QLatin1String kRunPrefix("sbw-run-");
const QLatin1String kNameTimeFormat("yyyyMMdd-HHmmss");
/// An overlay without a domain is only an orphan when older than this: a run creates its
/// overlay a moment before its domain.
constexpr qint64 kOrphanMinAgeSecs = 300;

virDomainPtr createDomain(virConnectPtr conn, const DomainSpec& spec)
{
    const QByteArray xml = domainXml(spec).toUtf8();
    return virDomainCreateXML(conn, xml.constData(), VIR_DOMAIN_START_AUTODESTROY);
}

/// Waits until the guest's vCPUs have been nearly idle for a moment (at most a few seconds):
/// after the SSH session closes, the guest's init starts the next sshd, which should be waiting
/// for a client in the saved state rather than half-started.
void waitIdle(virDomainPtr domain)
{
    constexpr auto kWindow = std::chrono::milliseconds(250);
    constexpr unsigned long long kIdleNs = 15'000'000; // CPU time per window that counts as idle
    constexpr int kMaxWindows = 20;
    virDomainInfo before{};
    virDomainGetInfo(domain, &before);
    for (int i = 0; i < kMaxWindows; ++i) {
        QThread::msleep(kWindow.count());
        virDomainInfo after{};
        if (virDomainGetInfo(domain, &after) < 0 || after.cpuTime - before.cpuTime < kIdleNs)
            return;
        before = after;
    }
}

std::chrono::seconds readyTimeout(const SandboxOptions& options, bool kvm)
{
    return options.readyTimeout.count() > 0 ? options.readyTimeout : std::chrono::seconds(kvm ? 30 : 120);
}

QString newRunName()
{
    return kRunPrefix + QDateTime::currentDateTimeUtc().toString(kNameTimeFormat) + QLatin1Char('-')
           + QString::number(QRandomGenerator::global()->bounded(0x10000), 16).rightJustified(4, QLatin1Char('0'));
}

} // namespace

Expected<std::unique_ptr<Sandbox>> Sandbox::start(HypervisorConnection& connection,
                                                  const SandboxOptions& options)
{
    return startAs(connection, options, newRunName());
}

Expected<std::unique_ptr<Sandbox>> Sandbox::startTemplate(HypervisorConnection& connection,
                                                          const SandboxOptions& options, const QString& name)
{
    return startAs(connection, options, name);
}

Expected<SandboxInputs> sandboxInputs(HypervisorConnection& connection, const SandboxOptions& options)
{
    if (auto opened = connection.ensureOpen(); !opened)
        return opened.error();
    auto image = GuestImage::load(paths::imagesDir(), options.recipe);
    if (!image)
        return image.error();
    const auto disk = diskLimit(image.value(), options.diskGiB);
    if (!disk)
        return disk.error();
    auto key = ClientKey::loadOrCreate(paths::dataDir() + QLatin1String("/ssh"));
    if (!key)
        return key.error();
    return SandboxInputs{image.value(), disk.value(), key.value()};
}

Expected<void> stageSandboxImage(HypervisorConnection& connection, const SandboxOptions& options,
                                 const StagingProgress& progress)
{
    auto inputs = sandboxInputs(connection, options);
    if (!inputs)
        return inputs.error();
    auto pool = StoragePool::open(connection.handle(), isSystemUri(connection.uri()));
    if (!pool)
        return pool.error();
    if (auto staged = pool->stage(inputs->image, progress); !staged)
        return staged.error();
    return {};
}

Expected<std::unique_ptr<Sandbox>> Sandbox::prepare(HypervisorConnection& connection,
                                                    const SandboxOptions& options, const QString& name)
{
    auto inputs = sandboxInputs(connection, options);
    if (!inputs)
        return inputs.error();
    virConnectPtr conn = connection.handle();
    auto pool = StoragePool::open(conn, isSystemUri(connection.uri()));
    if (!pool)
        return pool.error();
    removeOrphans(pool.value(), conn);
    auto staged = pool->stage(inputs->image);
    if (!staged)
        return staged.error();

    std::unique_ptr<Sandbox> sandbox(new Sandbox);
    sandbox->m_connection = &connection;
    sandbox->m_options = options;
    sandbox->m_image = inputs->image;
    sandbox->m_key = inputs->key;
    sandbox->m_name = name;
    sandbox->m_staged = staged.value();
    sandbox->m_pool = pool.value();
    sandbox->m_diskBytes = inputs->disk.bytes;
    sandbox->m_readyTimeout = readyTimeout(options, connection.accelerator() == Accelerator::Kvm);
    return sandbox;
}

Expected<std::unique_ptr<Sandbox>> Sandbox::startAs(HypervisorConnection& connection,
                                                    const SandboxOptions& options, const QString& name)
{
    auto prepared = prepare(connection, options, name);
    if (!prepared)
        return prepared.error();
    std::unique_ptr<Sandbox> sandbox = std::move(prepared.value());
    auto overlay = sandbox->m_pool->createOverlay(name + StoragePool::kQcow2Suffix, sandbox->m_staged, sandbox->m_diskBytes);
    if (!overlay)
        return overlay.error();
    sandbox->m_overlayVolume = name + StoragePool::kQcow2Suffix;
    const GuestImage& image = sandbox->m_image;
    const auto disk = diskLimit(image, options.diskGiB); // checked by prepare()

    DomainSpec spec;
    spec.name = name;
    spec.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    spec.kind = DomainSpec::Kind::Ephemeral;
    spec.kvm = connection.accelerator() == Accelerator::Kvm;
    spec.memoryMiB = options.memoryMiB;
    spec.vcpus = options.vcpus;
    spec.cpuSharePercent = options.cpuSharePercent;
    spec.kernel = sandbox->m_staged.kernel;
    spec.initrd = sandbox->m_staged.initrd;
    // sbw.run=1: the initramfs makes the run's folders (EphemeralRun's /root/run and out/).
    spec.cmdline = image.cmdline + QLatin1String(" sbw.key=") + sandbox->m_key->kernelParameterValue()
                   + disk->kernelParameter() + QLatin1String(" sbw.run=1");
    spec.disk = overlay.value();
    spec.sshPort = image.sshPort;
    spec.agentPort = image.agentPort;
    spec.imageRecipe = image.recipe;
    spec.imageHash = image.hash;
    spec.created = QDateTime::currentDateTimeUtc();

    virConnectPtr conn = connection.handle();
    sandbox->m_domain = createDomain(conn, spec);
    if (!sandbox->m_domain && spec.kvm && lastVirtErrorMessage().contains(QLatin1String("kvm"), Qt::CaseInsensitive)) {
        // The daemon offers KVM but QEMU cannot use /dev/kvm (e.g. its permissions on a
        // machine without udev): fall back to TCG for this and every later domain.
        connection.markKvmUnusable(lastVirtErrorMessage());
        spec.kvm = false;
        sandbox->m_domain = createDomain(conn, spec);
    }
    if (!sandbox->m_domain)
        return virtError(QStringLiteral("cannot start the sandbox's domain"));
    sandbox->m_readyTimeout = readyTimeout(options, spec.kvm);
    qCInfo(lcRun) << "started domain" << name << "on" << HypervisorConnection::describe(connection.accelerator());
    return sandbox;
}

Expected<std::unique_ptr<Sandbox>> Sandbox::restore(HypervisorConnection& connection,
                                                    const SandboxOptions& options, const SavedSandboxState& state)
{
    QElapsedTimer timer;
    timer.start();
    auto prepared = prepare(connection, options, newRunName());
    if (!prepared)
        return prepared.error();
    std::unique_ptr<Sandbox> sandbox = std::move(prepared.value());
    const qint64 preparedMs = timer.elapsed();
    const QString overlayVolume = sandbox->m_name + StoragePool::kQcow2Suffix;
    auto overlay = sandbox->m_pool->createOverlayOn(overlayVolume, state.overlayPath, state.diskBytes);
    if (!overlay)
        return overlay.error();
    sandbox->m_overlayVolume = overlayVolume;
    sandbox->m_diskBytes = state.diskBytes;
    sandbox->m_restored = true;
    const CloneIdentity clone{sandbox->m_name, QUuid::createUuid().toString(QUuid::WithoutBraces), overlay.value(),
                              QDateTime::currentDateTimeUtc(), {}};
    const bool local = isLocalUri(connection.uri());
    if (auto loaded = local ? sandbox->loadIntoNewDomain(state, clone) : sandbox->restoreCopyOf(state, clone); !loaded)
        return loaded.error();
    const qint64 loadedMs = timer.elapsed();
    if (auto resumed = sandbox->resume(); !resumed)
        return resumed.error();
    qCInfo(lcRun) << "restored domain" << sandbox->m_name << "from" << state.name << "in" << timer.elapsed()
                  << "ms: prepared" << preparedMs << "ms, domain started with the memory loaded"
                  << loadedMs - preparedMs << "ms" << (local ? "(incoming migration)" : "(copy of the save image)");
    return sandbox;
}

Expected<void> Sandbox::loadIntoNewDomain(const SavedSandboxState& state, const CloneIdentity& clone)
{
    const auto xml = cloneDomainXml(state.domainXml, clone, CloneLoad::IncomingDefer);
    if (!xml)
        return xml.error();
    const QByteArray utf8 = xml->toUtf8();
    m_domain = virDomainCreateXML(m_connection->handle(), utf8.constData(),
                                  VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
    if (!m_domain)
        return virtError(QStringLiteral("cannot start the sandbox's domain"));
    const auto deadline = std::chrono::steady_clock::now() + m_readyTimeout;
    return loadIncomingMigration(m_domain, *m_pool, state.saveVolume, state.streamOffset, deadline);
}

Expected<void> Sandbox::restoreCopyOf(const SavedSandboxState& state, const CloneIdentity& clone)
{
    // The copy is made by the daemon, so no byte of the memory passes through this process;
    // libvirt has read all of it once the restore returns.
    const QString copy = m_name + StoragePool::kSaveSuffix;
    auto path = m_pool->cloneVolume(state.saveVolume, copy);
    if (!path)
        return path.error();
    const auto deleteCopy = qScopeGuard([&] {
        if (auto deleted = m_pool->deleteVolume(copy); !deleted)
            qCWarning(lcRun) << deleted.error().message;
    });
    if (auto written = writeCloneHead(copy, state.streamOffset, clone); !written)
        return written.error();
    const QByteArray pathUtf8 = path->toUtf8();
    if (virDomainRestoreFlags(m_connection->handle(), pathUtf8.constData(), nullptr, VIR_DOMAIN_SAVE_PAUSED) < 0)
        return virtError(QStringLiteral("cannot restore the sandbox's domain"));
    const QByteArray name = m_name.toUtf8();
    m_domain = virDomainLookupByName(m_connection->handle(), name.constData());
    if (!m_domain)
        return virtError(QStringLiteral("the restored domain %1 is gone").arg(m_name));
    m_lease = std::make_unique<RunLease>(m_domain);
    return {};
}

Expected<void> Sandbox::writeCloneHead(const QString& copy, qint64 streamOffset, CloneIdentity clone)
{
    QByteArray head;
    auto read = m_pool->download(copy, 0, streamOffset, [&head](QByteArrayView chunk) {
        head += chunk;
        return true;
    });
    if (!read)
        return read.error();
    auto savedXml = save_image::domainXml(head);
    if (!savedXml)
        return savedXml.error();
    clone.leaseUntil = RunLease::untilFromNow();
    const auto xml = cloneDomainXml(QString::fromUtf8(savedXml.value()), clone, CloneLoad::SaveImage);
    if (!xml)
        return xml.error();
    auto newHead = save_image::withDomainXml(head, xml->toUtf8());
    if (!newHead)
        return newHead.error();
    return m_pool->writeAt(copy, 0, newHead.value());
}

Expected<void> Sandbox::saveState(const QString& path)
{
    if (m_session)
        m_session->close();
    m_session.reset();
    m_bridge.reset();
    waitIdle(m_domain);
    const QByteArray utf8 = path.toUtf8();
    if (virDomainSaveFlags(m_domain, utf8.constData(), nullptr, 0) < 0)
        return virtError(QStringLiteral("cannot save sandbox %1").arg(m_name));
    virDomainFree(m_domain); // saving stopped it, and the transient domain is gone
    m_domain = nullptr;
    m_overlayVolume.clear(); // kept: the saved state's disk
    return {};
}

Sandbox::~Sandbox() { destroy(); }

Expected<void> Sandbox::waitReady(const std::atomic_bool* cancel)
{
    const auto deadline = std::chrono::steady_clock::now() + m_readyTimeout;
    const QByteArray port = m_image.sshPort.toUtf8();
    auto bridge = VirtioSerialBridge::open(m_connection->handle(), m_domain, port.constData(),
                                      GuestSession::kServerGreeting);
    if (!bridge)
        return bridge.error();
    m_bridge = std::move(bridge.value());
    auto session = GuestSession::connect(m_bridge->takePeerFd(), *m_key, m_image.hostKey, deadline, cancel);
    if (!session) {
        if (std::chrono::steady_clock::now() >= deadline)
            return makeError(QStringLiteral("the guest did not become ready within %1 s (domain %2); "
                                            "see its console with: virsh console %2")
                                 .arg(m_readyTimeout.count())
                                 .arg(m_name));
        return session.error();
    }
    m_session = std::move(session.value());
    if (!m_restored)
        return {};
    QElapsedTimer freshening;
    freshening.start();
    auto freshened = freshenGuest(*m_session);
    qCInfo(lcRun) << "guest of" << m_name << "reseeded in" << freshening.elapsed() << "ms";
    return freshened;
}

Expected<void> Sandbox::suspend()
{
    if (virDomainSuspend(m_domain) < 0)
        return virtError(QStringLiteral("cannot pause sandbox %1").arg(m_name));
    return {};
}

Expected<void> Sandbox::resume()
{
    if (virDomainResume(m_domain) < 0)
        return virtError(QStringLiteral("cannot resume sandbox %1").arg(m_name));
    return {};
}

void Sandbox::destroy()
{
    if (m_session)
        m_session->close(); // also for holders of sharedSession()
    m_session.reset();
    m_bridge.reset();
    if (m_domain) {
        if (virDomainDestroy(m_domain) < 0)
            qCWarning(lcRun) << "cannot destroy domain" << m_name << lastVirtErrorMessage();
        virDomainFree(m_domain);
        m_domain = nullptr;
    }
    m_lease.reset(); // when the destroy failed (a lost host), the next sweep there ends it
    if (!m_overlayVolume.isEmpty()) {
        if (auto deleted = m_pool->deleteVolume(m_overlayVolume); !deleted)
            qCWarning(lcRun) << deleted.error().message;
        m_overlayVolume.clear();
    }
    qCInfo(lcRun) << "removed sandbox" << m_name;
}

void Sandbox::removeOrphans(StoragePool& pool, virConnectPtr conn)
{
    for (const QString& domainName : sweepExpiredRunLeases(conn, kRunPrefix))
        pool.deleteVolume(domainName + StoragePool::kQcow2Suffix);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const QString& volume : pool.volumeNames(kRunPrefix)) {
        // A save image's copy is gone once its restore returned: one that is left is an orphan.
        const bool saveCopy = volume.endsWith(StoragePool::kSaveSuffix);
        if (!saveCopy && !volume.endsWith(StoragePool::kQcow2Suffix))
            continue;
        const QString domainName = volume.section(QLatin1Char('.'), 0, 0);
        QDateTime created = QDateTime::fromString(domainName.mid(kRunPrefix.size(), 15), kNameTimeFormat);
        created.setTimeZone(QTimeZone::utc());
        if (!created.isValid() || created.secsTo(now) < kOrphanMinAgeSecs)
            continue;
        const QByteArray name = domainName.toUtf8();
        if (virDomainPtr domain = saveCopy ? nullptr : virDomainLookupByName(conn, name.constData())) {
            virDomainFree(domain);
            continue;
        }
        virResetLastError();
        qCInfo(lcRun) << "removing orphan volume" << volume;
        pool.deleteVolume(volume);
    }
}

} // namespace sbw
