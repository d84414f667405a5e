#include "sandbox/Sandbox.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "guest/ClientKey.h"
#include "guest/GuestSession.h"
#include "hypervisor/VirtioSerialBridge.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"
#include "sandbox/SandboxLimits.h"

#include <QDateTime>
#include <QRandomGenerator>
#include <QTimeZone>
#include <QUuid>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

namespace sbw {
namespace {

const QLatin1String kRunPrefix("sbw-run-");
const QLatin1String kOverlaySuffix(".qcow2");
const QLatin1String kNameTimeFormat("yyyyMMdd-HHmmss");
/// An overlay without a domain is only an orphan when older than this: a run creates its
/// overlay a moment before its domain.
constexpr qint64 kOrphanMinAgeSecs = 300;

virDomainPtr createDomain(virConnectPtr conn, const DomainSpec& spec)
{
    const QByteArray xml = domainXml(spec).toUtf8();
    return virDomainCreateXML(conn, xml.constData(), VIR_DOMAIN_START_AUTODESTROY);
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
    virConnectPtr conn = connection.handle();
    auto pool = StoragePool::open(conn, isSystemUri(connection.uri()));
    if (!pool)
        return pool.error();
    removeOrphanOverlays(pool.value(), conn);
    auto staged = pool->stage(image.value());
    if (!staged)
        return staged.error();

    std::unique_ptr<Sandbox> sandbox(new Sandbox);
    sandbox->m_connection = &connection;
    sandbox->m_options = options;
    sandbox->m_image = image.value();
    sandbox->m_key = key.value();
    sandbox->m_name = newRunName();
    const bool kvm = connection.accelerator() == Accelerator::Kvm;

    auto overlay = pool->createOverlay(sandbox->m_name + kOverlaySuffix, staged.value(), disk->bytes);
    if (!overlay)
        return overlay.error();
    sandbox->m_overlayVolume = sandbox->m_name + kOverlaySuffix;
    sandbox->m_diskBytes = disk->bytes;

    DomainSpec spec;
    spec.name = sandbox->m_name;
    spec.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    spec.kind = DomainSpec::Kind::Ephemeral;
    spec.kvm = kvm;
    spec.memoryMiB = options.memoryMiB;
    spec.vcpus = options.vcpus;
    spec.cpuSharePercent = options.cpuSharePercent;
    spec.kernel = staged->kernel;
    spec.initrd = staged->initrd;
    // sbw.run=1: the initramfs makes the run's folders (EphemeralRun's /root/run and out/).
    spec.cmdline = image->cmdline + QLatin1String(" sbw.key=") + sandbox->m_key->kernelParameterValue()
                   + disk->kernelParameter() + QLatin1String(" sbw.run=1");
    spec.disk = overlay.value();
    spec.sshPort = image->sshPort;
    spec.agentPort = image->agentPort;
    spec.imageRecipe = image->recipe;
    spec.imageHash = image->hash;
    spec.created = QDateTime::currentDateTimeUtc();

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
    sandbox->m_readyTimeout = options.readyTimeout.count() > 0
                                  ? options.readyTimeout
                                  : std::chrono::seconds(spec.kvm ? 30 : 120);
    qCInfo(lcRun) << "started domain" << sandbox->m_name << "on" << HypervisorConnection::describe(connection.accelerator());
    return sandbox;
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
    return {};
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
    if (!m_overlayVolume.isEmpty()) {
        if (auto pool = StoragePool::open(m_connection->handle(), isSystemUri(m_connection->uri()))) {
            if (auto deleted = pool->deleteVolume(m_overlayVolume); !deleted)
                qCWarning(lcRun) << deleted.error().message;
        }
        m_overlayVolume.clear();
    }
    qCInfo(lcRun) << "removed sandbox" << m_name;
}

void Sandbox::removeOrphanOverlays(StoragePool& pool, virConnectPtr conn)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (const QString& volume : pool.volumeNames(kRunPrefix)) {
        const QString domainName = volume.chopped(kOverlaySuffix.size());
        QDateTime created = QDateTime::fromString(domainName.mid(kRunPrefix.size(), 15), kNameTimeFormat);
        created.setTimeZone(QTimeZone::utc());
        if (!volume.endsWith(kOverlaySuffix) || !created.isValid()
            || created.secsTo(now) < kOrphanMinAgeSecs)
            continue;
        const QByteArray name = domainName.toUtf8();
        if (virDomainPtr domain = virDomainLookupByName(conn, name.constData())) {
            virDomainFree(domain);
            continue;
        }
        virResetLastError();
        qCInfo(lcRun) << "removing orphan overlay" << volume;
        pool.deleteVolume(volume);
    }
}

} // namespace sbw
