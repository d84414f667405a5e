#include "workspace/Workspace.h"

#include "base/DataPaths.h"
#include "base/Logging.h"
#include "guest/ClientKey.h"
#include "guest/GuestSession.h"
#include "guest/LoopbackClientProbe.h"
#include "guest/ReverseForward.h"
#include "hypervisor/VirtioSerialBridge.h"
#include "hypervisor/ConnectionUri.h"
#include "hypervisor/DomainSpec.h"
#include "hypervisor/HypervisorConnection.h"
#include "hypervisor/StoragePool.h"
#include "hypervisor/VirtError.h"
#include "image/GuestImage.h"
#include "sandbox/SandboxLimits.h"
#include "workspace/WorkspaceDomains.h"
#include "network/GuestEgress.h"

#include <QDateTime>
#include <QThread>
#include <QUuid>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <utility>

namespace sbw {
namespace {

using Clock = std::chrono::steady_clock;

/// Each SSH connection attempt waits this long for the guest's banner; a restored guest may
/// still be replacing the sshd of an older host connection, so a silent attempt is retried.
constexpr std::chrono::seconds kAttemptTimeout(15);
/// How long the guest agent may take to answer after a resume or restore.
constexpr std::chrono::seconds kAgentTimeout(20);

QByteArray shellQuote(const QString& word)
{
    QByteArray quoted = word.toUtf8();
    quoted.replace('\'', "'\\''");
    return '\'' + quoted + '\'';
}

/// Opens the first of the domain's SSH channels that no other client holds: libvirt allows
/// one stream per channel and refuses another with "Active channel stream exists for this
/// domain", whichever process holds it.
Expected<std::unique_ptr<VirtioSerialBridge>> openFreeSshChannel(virConnectPtr conn, virDomainPtr domain,
                                                            const WorkspaceRecord& record)
{
    const QStringList ports = readSshPorts(domain, record.sshPort);
    for (const QString& port : ports) {
        const QByteArray portUtf8 = port.toUtf8();
        auto bridge = VirtioSerialBridge::open(conn, domain, portUtf8.constData(), GuestSession::kServerGreeting);
        if (bridge) {
            qCDebug(lcChannel) << "workspace" << record.name << "SSH on" << port;
            return bridge;
        }
        if (bridge.error().code != ErrorCode::InUse)
            return bridge.error();
    }
    if (ports.size() == 1)
        return makeError(QStringLiteral(
            "workspace '%1' is in use by another workbench process (its guest serves one SSH "
            "connection at a time): close that window's workspace or end that sbw command, then "
            "try again").arg(record.name));
    return makeError(QStringLiteral("all %1 SSH connections of workspace '%2' are in use by "
                                    "other workbench windows or sbw commands: end one of them, "
                                    "then try again")
                         .arg(ports.size())
                         .arg(record.name));
}

} // namespace

struct Workspace::Link
{
    std::unique_ptr<VirtioSerialBridge> bridge;
    std::unique_ptr<GuestSession> session; // destroyed before the bridge under it
    std::unique_ptr<ReverseForward> egress; // allowlist network: destroyed before the session
    bool egressTaken = false; // another session held the proxy port when this one last asked
};

Workspace::Workspace(HypervisorConnection& connection, WorkspaceRecord record)
    : m_connection(connection), m_record(std::move(record))
{}

Workspace::~Workspace() = default;

Expected<std::unique_ptr<Workspace>> Workspace::create(HypervisorConnection& connection,
                                                       const QString& name,
                                                       const WorkspaceSettings& settings)
{
    if (auto valid = validateWorkspaceName(name); !valid)
        return valid.error();
    if (settings.vcpus < 1 || settings.memoryMiB < 128 || settings.diskGiB < 1)
        return makeError(QStringLiteral(
            "a workspace needs at least 1 vCPU, 128 MiB of memory and 1 GiB of disk"));
    if (auto share = validateCpuShare(settings.cpuSharePercent, settings.vcpus); !share)
        return share.error();
    if (auto opened = connection.ensureOpen(); !opened)
        return opened.error();
    virConnectPtr conn = connection.handle();
    const QString domainName = workspaceDomainName(name);
    const QByteArray domainNameUtf8 = domainName.toUtf8();
    if (virDomainPtr existing = virDomainLookupByName(conn, domainNameUtf8.constData())) {
        virDomainFree(existing);
        return makeError(QStringLiteral("a workspace named '%1' already exists").arg(name));
    }
    virResetLastError();

    auto image = GuestImage::load(paths::imagesDir(), settings.recipe);
    if (!image)
        return image.error();
    const auto disk = diskLimit(image.value(), settings.diskGiB);
    if (!disk)
        return disk.error();
    auto key = ClientKey::loadOrCreate(paths::dataDir() + QLatin1String("/ssh"));
    if (!key)
        return key.error();
    auto pool = StoragePool::open(conn, isSystemUri(connection.uri()));
    if (!pool)
        return pool.error();
    auto staged = pool->stage(image.value());
    if (!staged)
        return staged.error();
    // An overlay without a domain is left from a failed create; it holds nothing of value.
    if (auto removed = pool->deleteVolume(workspaceOverlayVolume(name)); !removed)
        return removed.error();
    auto overlay = pool->createOverlay(workspaceOverlayVolume(name), staged.value(), disk->bytes);
    if (!overlay)
        return overlay.error();

    DomainSpec spec;
    spec.name = domainName;
    spec.uuid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    spec.kind = DomainSpec::Kind::Workspace;
    spec.kvm = connection.accelerator() == Accelerator::Kvm;
    spec.memoryMiB = settings.memoryMiB;
    spec.vcpus = settings.vcpus;
    spec.cpuSharePercent = settings.cpuSharePercent;
    spec.kernel = staged->kernel;
    spec.initrd = staged->initrd;
    // loglevel=6 after the image's "quiet": the serial console's boot log shows the kernel's
    // notices too (its version and command line), a few dozen lines; not its info flood.
    spec.cmdline = image->cmdline + QLatin1String(" sbw.key=") +
                   key.value()->kernelParameterValue() + disk->kernelParameter() +
                   QLatin1String(" loglevel=6");
    spec.disk = overlay.value();
    spec.sshPort = image->sshPort;
    spec.extraSshPorts = image->sshPorts.mid(1);
    spec.agentPort = image->agentPort;
    spec.consoleLog =
        spec.disk.left(spec.disk.lastIndexOf(QLatin1Char('/')) + 1) + workspaceConsoleLogVolume(name);
    spec.imageRecipe = image->recipe;
    spec.imageHash = image->hash;
    spec.created = QDateTime::currentDateTimeUtc();
    spec.workspaceName = name;
    spec.imageBuildId = image->buildId;
    spec.diskGiB = settings.diskGiB;
    spec.hostKey = image->hostKey;
    spec.natNetwork = settings.network == WorkspaceNetwork::Nat;
    spec.networkMode = workspaceNetworkName(settings.network);

    const QByteArray xml = domainXml(spec).toUtf8();
    DomainPtr domain(virDomainDefineXML(conn, xml.constData()));
    if (!domain) {
        const Error error = virtError(QStringLiteral("cannot define workspace '%1'").arg(name));
        pool->deleteVolume(workspaceOverlayVolume(name));
        return error;
    }
    auto record = readWorkspaceRecord(domain.get());
    if (!record) {
        virDomainUndefine(domain.get());
        pool->deleteVolume(workspaceOverlayVolume(name));
        return record.error();
    }
    if (auto saved = saveWorkspaceRecord(record.value()); !saved)
        qCWarning(lcVirt) << saved.error().message;
    qCInfo(lcVirt) << "created workspace" << name << "as" << domainName;
    auto workspace = std::make_unique<Workspace>(connection, record.value());
    workspace->m_key = key.value();
    return workspace;
}

Expected<std::unique_ptr<Workspace>> Workspace::open(HypervisorConnection& connection,
                                                     const QString& name)
{
    if (auto opened = connection.ensureOpen(); !opened)
        return opened.error();
    auto domain = lookupWorkspaceDomain(connection.handle(), name);
    if (!domain)
        return domain.error();
    auto record = readWorkspaceRecord(domain->get());
    if (!record)
        return record.error();
    return std::make_unique<Workspace>(connection, record.value());
}

WorkspaceState Workspace::state()
{
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    return domain ? readWorkspaceState(domain->get()) : WorkspaceState::Unknown;
}

Expected<void> Workspace::requireState(bool (*allowed)(WorkspaceState), const char* action)
{
    const WorkspaceState now = state();
    if (allowed(now))
        return {};
    QString hint;
    switch (now) {
    case WorkspaceState::Stopped:
    case WorkspaceState::Crashed:
        hint = QStringLiteral(" (start it first)");
        break;
    case WorkspaceState::Paused:
        hint = QStringLiteral(" (resume it first)");
        break;
    case WorkspaceState::Hibernated:
        hint = QStringLiteral(" (wake it first: sbw ws start, or Wake in the window)");
        break;
    default:
        break;
    }
    return makeError(QStringLiteral("cannot %1 workspace '%2': it is %3%4")
                         .arg(QLatin1String(action), m_record.name, workspaceStateName(now), hint));
}

Expected<DomainPtr> Workspace::domainIf(bool (*allowed)(WorkspaceState), const char* action)
{
    if (auto permitted = requireState(allowed, action); !permitted)
        return permitted.error();
    return lookupWorkspaceDomain(m_connection.handle(), m_record.name);
}

Expected<void> Workspace::boot(virDomainPtr domain, const char* verb)
{
    if (virDomainCreate(domain) < 0)
        return virtError(QStringLiteral("cannot %1 workspace '%2'").arg(QLatin1String(verb), m_record.name));
    return {};
}

Expected<void> Workspace::start()
{
    std::lock_guard lock(m_mutex);
    auto domain = domainIf(canStart, "start");
    if (!domain)
        return domain.error();
    if (auto booted = boot(domain->get(), "start"); !booted)
        return booted;
    qCInfo(lcVirt) << "started workspace" << m_record.name;
    return {};
}

Expected<StopOutcome> Workspace::stop(std::chrono::seconds grace)
{
    std::lock_guard lock(m_mutex);
    if (auto allowed = requireState(canStop, "stop"); !allowed)
        return allowed.error();
    const auto started = Clock::now();
    const auto deadline = started + grace;
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    virDomainPtr dom = domain->get();
    if (readWorkspaceState(dom) == WorkspaceState::Paused && virDomainResume(dom) < 0)
        return virtError(
            QStringLiteral("cannot resume workspace '%1' to shut it down").arg(m_record.name));

    StopOutcome outcome;
    outcome.graceSeconds = grace.count();
    const bool off = askPowerOff(dom, deadline, outcome) && waitShutOff(dom, deadline);
    dropSession();
    if (!off) {
        qCWarning(lcVirt) << "forcing workspace" << m_record.name << "off: still running after"
                          << grace.count() << "s";
        // A destroy that fails on a domain that is off found a guest that powered off by itself
        // between the last look and now.
        if (virDomainDestroy(dom) == 0)
            outcome.forced = true;
        else if (virDomainIsActive(dom) == 1)
            return virtError(QStringLiteral("cannot stop workspace '%1'").arg(m_record.name));
    }
    outcome.elapsedMs =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
    qCInfo(lcVirt) << "workspace" << m_record.name << ":" << outcome.summary();
    return outcome;
}

bool Workspace::askPowerOff(virDomainPtr domain, Clock::time_point deadline, StopOutcome& outcome)
{
    // Right after boot the guest agent is not connected yet while SSH already answers; later
    // every SSH port may be held by other programs while the agent answers. Each is tried in
    // turn until one takes the request or the grace period ends.
    while (Clock::now() < deadline) {
        if (isShutOff(domain))
            return true;
        if (readWorkspaceState(domain) == WorkspaceState::Running) {
            if (virDomainShutdownFlags(domain, VIR_DOMAIN_SHUTDOWN_GUEST_AGENT) == 0) {
                outcome.request = StopRequest::GuestAgent;
                return true;
            }
            outcome.unasked = QStringLiteral("its guest agent: %1").arg(lastVirtErrorMessage());
            // The guest's shutdown ends every process, so the agent's answer can be lost (libvirt
            // reports the agent gone) while the guest goes down as asked.
            if (waitShutOff(domain, std::min(deadline, Clock::now() + std::chrono::seconds(5)))) {
                outcome.request = StopRequest::GuestAgent;
                return true;
            }
        }
        if (auto asked = askPowerOffOverSsh(deadline, outcome); asked) {
            outcome.request = StopRequest::Ssh;
            return true;
        } else {
            outcome.unasked = QStringLiteral("SSH: %1").arg(asked.error().message);
        }
        QThread::msleep(250);
    }
    return false;
}

Expected<void> Workspace::askPowerOffOverSsh(Clock::time_point deadline, StopOutcome& outcome)
{
    // Not longer than one SSH attempt, so that an agent that connects meanwhile is used.
    const auto attemptDeadline = std::min(deadline, Clock::now() + kAttemptTimeout);
    if (auto ready = ensureSession(attemptDeadline, nullptr); !ready)
        return ready;
    const std::shared_ptr<Link> link = m_link;
    ExecRequest sync;
    sync.command = "exec sync";
    sync.timeout =
        std::max(std::chrono::milliseconds(1000),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    auto synced = link->session->exec(sync);
    if (!synced) {
        dropSession();
        return synced.error();
    }
    if (synced->exitStatus != 0)
        return makeError(QStringLiteral("sync in the guest failed"));
    outcome.synced = true;
    // Detached (setsid -f): the guest's shutdown freezes sshd, which would then never report
    // this command's end. Its answer is therefore not needed; the domain's state tells.
    ExecRequest powerOff;
    powerOff.command = "exec setsid -f /sbin/poweroff </dev/null >/dev/null 2>&1";
    powerOff.timeout = std::chrono::seconds(5);
    if (auto status = link->session->exec(powerOff); status && status->exitStatus != 0)
        return makeError(QStringLiteral("poweroff in the guest failed with status %1")
                             .arg(status->exitStatus.value_or(-1)));
    return {};
}

bool Workspace::isShutOff(virDomainPtr domain)
{
    int state = 0;
    return virDomainGetState(domain, &state, nullptr, 0) == 0 && state == VIR_DOMAIN_SHUTOFF;
}

bool Workspace::waitShutOff(virDomainPtr domain, Clock::time_point deadline)
{
    while (!isShutOff(domain)) {
        if (Clock::now() >= deadline)
            return false;
        QThread::msleep(100);
    }
    return true;
}

Expected<void> Workspace::pause()
{
    std::lock_guard lock(m_mutex);
    auto domain = domainIf(canPause, "pause");
    if (!domain)
        return domain.error();
    if (virDomainSuspend(domain->get()) < 0)
        return virtError(QStringLiteral("cannot pause workspace '%1'").arg(m_record.name));
    return {};
}

Expected<void> Workspace::resume()
{
    std::lock_guard lock(m_mutex);
    auto domain = domainIf(canResume, "resume");
    if (!domain)
        return domain.error();
    if (virDomainResume(domain->get()) < 0)
        return virtError(QStringLiteral("cannot resume workspace '%1'").arg(m_record.name));
    return syncGuestClock();
}

Expected<void> Workspace::hibernate()
{
    std::lock_guard lock(m_mutex);
    if (auto allowed = requireState(canHibernate, "hibernate"); !allowed)
        return allowed;
    dropSession();
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    if (virDomainManagedSave(domain->get(), 0) < 0)
        return virtError(QStringLiteral("cannot hibernate workspace '%1'").arg(m_record.name));
    return {};
}

Expected<void> Workspace::wake()
{
    std::lock_guard lock(m_mutex);
    auto domain = domainIf(canWake, "wake");
    if (!domain)
        return domain.error();
    if (auto booted = boot(domain->get(), "wake"); !booted)
        return booted;
    return syncGuestClock();
}

Expected<CheckpointInfo> Workspace::checkpoint(const QString& name, const QString& note)
{
    std::lock_guard lock(m_mutex);
    if (auto valid = validateCheckpointName(name); !valid)
        return valid.error();
    if (auto allowed = requireState(canCheckpoint, "checkpoint"); !allowed)
        return allowed.error();
    // Without a host connection the guest's sshd waits for the next one, so a revert to this
    // checkpoint finds it ready instead of in the middle of a session nobody has any more.
    dropSession();
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    if (SnapshotPtr existing(virDomainSnapshotLookupByName(domain->get(), name.toUtf8().constData(), 0));
        existing)
        return makeError(QStringLiteral("workspace '%1' already has a checkpoint named '%2': "
                                        "choose another name, or delete that one first")
                             .arg(m_record.name, name));
    virResetLastError();
    const QByteArray xml = checkpointSnapshotXml(name, note).toUtf8();
    SnapshotPtr snapshot(virDomainSnapshotCreateXML(domain->get(), xml.constData(), 0));
    if (!snapshot)
        return virtError(QStringLiteral("cannot take checkpoint '%1' of workspace '%2'")
                             .arg(name, m_record.name));
    char* description = virDomainSnapshotGetXMLDesc(snapshot.get(), 0);
    auto info = checkpointFromSnapshotXml(QString::fromUtf8(description));
    free(description);
    if (info)
        info->current = true;
    return info;
}

Expected<QList<CheckpointInfo>> Workspace::checkpoints()
{
    std::lock_guard lock(m_mutex);
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    virDomainSnapshotPtr* snapshots = nullptr;
    const int count = virDomainListAllSnapshots(domain->get(), &snapshots, 0);
    if (count < 0)
        return virtError(
            QStringLiteral("cannot list the checkpoints of workspace '%1'").arg(m_record.name));
    QList<CheckpointInfo> list;
    for (int i = 0; i < count; ++i) {
        char* description = virDomainSnapshotGetXMLDesc(snapshots[i], 0);
        if (auto info = checkpointFromSnapshotXml(QString::fromUtf8(description))) {
            info->current = virDomainSnapshotIsCurrent(snapshots[i], 0) == 1;
            list << info.value();
        }
        free(description);
        virDomainSnapshotFree(snapshots[i]);
    }
    free(snapshots);
    orderTimeline(list);
    return list;
}

Expected<RevertImpact> Workspace::revertImpact(const QString& name)
{
    std::lock_guard lock(m_mutex);
    auto list = checkpoints();
    if (!list)
        return list.error();
    const auto found = std::find_if(list->cbegin(), list->cend(),
                                    [&](const CheckpointInfo& info) { return info.name == name; });
    if (found == list->cend())
        return makeError(
            QStringLiteral("workspace '%1' has no checkpoint '%2'").arg(m_record.name, name));
    RevertImpact impact;
    impact.checkpoint = name;
    impact.checkpointCreated = found->created;
    impact.laterCheckpoints = int(descendantCount(list.value(), name));
    impact.secondsLost =
        std::max<qint64>(0, impact.checkpointCreated.secsTo(QDateTime::currentDateTimeUtc()));
    const WorkspaceState now = state();
    impact.guestRunning = now == WorkspaceState::Running || now == WorkspaceState::Paused ||
                          now == WorkspaceState::Starting;
    return impact;
}

Expected<void> Workspace::revert(const QString& name)
{
    std::lock_guard lock(m_mutex);
    auto domain = domainIf(canRevert, "revert");
    if (!domain)
        return domain.error();
    const QByteArray utf8 = name.toUtf8();
    SnapshotPtr snapshot(virDomainSnapshotLookupByName(domain->get(), utf8.constData(), 0));
    if (!snapshot)
        return makeError(
            QStringLiteral("workspace '%1' has no checkpoint '%2'").arg(m_record.name, name));
    dropSession();
    if (virDomainRevertToSnapshot(snapshot.get(), 0) < 0)
        return virtError(QStringLiteral("cannot revert workspace '%1' to checkpoint '%2'")
                             .arg(m_record.name, name));
    int state = 0;
    if (virDomainGetState(domain->get(), &state, nullptr, 0) == 0 && state == VIR_DOMAIN_RUNNING)
        return syncGuestClock();
    return {};
}

Expected<void> Workspace::deleteCheckpoint(const QString& name)
{
    std::lock_guard lock(m_mutex);
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    const QByteArray utf8 = name.toUtf8();
    SnapshotPtr snapshot(virDomainSnapshotLookupByName(domain->get(), utf8.constData(), 0));
    if (!snapshot)
        return makeError(
            QStringLiteral("workspace '%1' has no checkpoint '%2'").arg(m_record.name, name));
    // Flags 0: this snapshot only; its children are re-parented and keep their data.
    if (virDomainSnapshotDelete(snapshot.get(), 0) < 0)
        return virtError(QStringLiteral("cannot delete checkpoint '%1' of workspace '%2'")
                             .arg(name, m_record.name));
    return {};
}

Expected<void> Workspace::remove()
{
    std::lock_guard lock(m_mutex);
    dropSession();
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    // Destroyed, not shut down: the overlay with every byte the guest wrote is deleted next,
    // so a clean shutdown would save nothing and cost up to the grace period.
    if (virDomainIsActive(domain->get()) == 1) {
        qCInfo(lcVirt) << "destroying workspace" << m_record.name << "to delete it";
        if (virDomainDestroy(domain->get()) < 0)
            return virtError(
                QStringLiteral("cannot stop workspace '%1' to delete it").arg(m_record.name));
    }
    const unsigned flags = VIR_DOMAIN_UNDEFINE_MANAGED_SAVE |
                           VIR_DOMAIN_UNDEFINE_SNAPSHOTS_METADATA |
                           VIR_DOMAIN_UNDEFINE_CHECKPOINTS_METADATA;
    if (virDomainUndefineFlags(domain->get(), flags) < 0)
        return virtError(QStringLiteral("cannot delete workspace '%1'").arg(m_record.name));
    auto pool = StoragePool::open(m_connection.handle(), isSystemUri(m_connection.uri()));
    if (!pool)
        return pool.error();
    if (auto deleted = pool->deleteVolume(workspaceOverlayVolume(m_record.name)); !deleted)
        return deleted;
    // StoragePool::open() refreshed the pool, so it knows the log virtlogd wrote.
    if (auto deleted = pool->deleteVolume(workspaceConsoleLogVolume(m_record.name)); !deleted)
        return deleted;
    qCInfo(lcVirt) << "deleted workspace" << m_record.name;
    return removeWorkspaceRecord(m_record.name);
}

Expected<WorkspaceEnvironment> Workspace::environment() const
{
    return loadWorkspaceEnvironment(m_record.name);
}

Expected<void> Workspace::setEnvironment(const WorkspaceEnvironment& environment)
{
    std::lock_guard lock(m_mutex);
    auto record = recordOnDisk();
    if (!record)
        return record.error();
    record->environment = environment;
    return saveWorkspaceRecord(record.value());
}

Expected<void> Workspace::setCheckpointBeforeApproved(bool on)
{
    std::lock_guard lock(m_mutex);
    auto record = recordOnDisk();
    if (!record)
        return record.error();
    record->checkpointBeforeApproved = on;
    return saveWorkspaceRecord(record.value());
}

Expected<WorkspaceRecord> Workspace::recordOnDisk() const
{
    // The JSON record's own fields as another process may have set them; the rest from libvirt.
    auto json = readWorkspaceRecordJson(m_record.name);
    if (!json)
        return json.error();
    const WorkspaceRecord onDisk = WorkspaceRecord::fromJson(json.value());
    WorkspaceRecord record = m_record;
    record.environment = onDisk.environment;
    record.checkpointBeforeApproved = onDisk.checkpointBeforeApproved;
    return record;
}

Expected<ExecStatus> Workspace::exec(const ExecRequest& plainRequest, Clock::time_point readyDeadline)
{
    auto environment = this->environment();
    if (!environment)
        return environment.error();
    ExecRequest request = plainRequest;
    request.command.prepend(environment->exportLines());
    if (m_record.settings.network == WorkspaceNetwork::Allowlist)
        request.command.prepend(guest_egress::exportLines());
    // A second attempt on a new session when the guest never answered the channel request:
    // the command did not start then, so running it again runs it once.
    for (int attempt = 1;; ++attempt) {
        std::shared_ptr<Link> link;
        {
            std::lock_guard lock(m_mutex);
            if (auto allowed = requireState(canExec, "run a command in"); !allowed)
                return allowed.error();
            if (auto ready = ensureSession(readyDeadline, request.cancel); !ready)
                return ready.error();
            listenForEgress();
            link = m_link;
        }
        auto status = link->session->exec(request);
        if (status)
            return status;
        {
            std::lock_guard lock(m_mutex);
            if (m_link == link)
                dropSession(); // broken: the next exec() reconnects
        }
        if (attempt > 1 || status.error().code != ErrorCode::Unanswered)
            return status;
        qCWarning(lcChannel) << "workspace" << m_record.name << ":" << status.error().message
                             << "; reconnecting";
    }
}

Expected<std::shared_ptr<GuestSession>> Workspace::session(Clock::time_point readyDeadline)
{
    std::lock_guard lock(m_mutex);
    auto shared = openSession(readyDeadline);
    if (shared)
        listenForEgress();
    return shared;
}

Expected<std::shared_ptr<GuestSession>> Workspace::borrowSession(Clock::time_point readyDeadline)
{
    std::lock_guard lock(m_mutex);
    const bool hadSession = m_link != nullptr;
    // No egress port: a session that closes after one read must not hold the proxy's port
    // while a lasting one (another Workspace object of this process) is refused it.
    auto shared = openSession(readyDeadline);
    if (shared && !hadSession)
        dropSession(); // `shared` keeps the link until the caller is done
    return shared;
}

Expected<std::shared_ptr<GuestSession>> Workspace::openSession(Clock::time_point readyDeadline)
{
    if (auto allowed = requireState(canExec, "open a terminal or file transfer in"); !allowed)
        return allowed.error();
    if (auto ready = ensureSession(readyDeadline, nullptr); !ready)
        return ready.error();
    // Aliasing: shares ownership of the link (session and bridge), points at the session.
    return std::shared_ptr<GuestSession>(m_link, m_link->session.get());
}

QByteArray Workspace::commandLine(const QStringList& argv, const QString& workdir)
{
    QByteArray line = "cd " + shellQuote(workdir) + " && exec";
    for (const QString& arg : argv)
        line += ' ' + shellQuote(arg);
    return line;
}

Expected<void> Workspace::syncGuestClock()
{
    auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
    if (!domain)
        return domain.error();
    const auto deadline = Clock::now() + kAgentTimeout;
    while (true) {
        const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
        if (virDomainSetTime(domain->get(), nowMs / 1000, unsigned((nowMs % 1000) * 1000000), 0) ==
            0)
            return {};
        if (Clock::now() >= deadline)
            return virtError(QStringLiteral("workspace '%1' runs, but its clock could not be set "
                                            "through the guest agent")
                                 .arg(m_record.name));
        QThread::msleep(250); // the agent reconnects after a restore
    }
}

Expected<void> Workspace::ensureSession(Clock::time_point deadline, CancelFlags cancel)
{
    // The bridge is asked too: after the libvirt connection was lost and opened again, the
    // session looks open until its bridge notices that its stream went with the old connection.
    if (m_link && m_link->session->isOpen() && m_link->bridge->isOpen())
        return {};
    // A session whose connection broke (the libvirt connection was lost, the guest's sshd
    // ended) is replaced; its holders keep the dead one until they ask again.
    dropSession();
    if (!m_key) {
        auto key = ClientKey::loadOrCreate(paths::dataDir() + QLatin1String("/ssh"));
        if (!key)
            return key.error();
        m_key = key.value();
    }
    Error lastError =
        makeError(QStringLiteral("the guest of workspace '%1' did not become ready in time")
                      .arg(m_record.name));
    while (Clock::now() < deadline && !cancel.requested()) {
        auto domain = lookupWorkspaceDomain(m_connection.handle(), m_record.name);
        if (!domain)
            return domain.error();
        auto bridge = openFreeSshChannel(m_connection.handle(), domain->get(), m_record);
        if (!bridge)
            return bridge.error();
        auto link = std::make_shared<Link>();
        link->bridge = std::move(bridge.value());
        const auto attemptDeadline = std::min(deadline, Clock::now() + kAttemptTimeout);
        auto session = GuestSession::connect(link->bridge->takePeerFd(), *m_key, m_record.hostKey,
                                             attemptDeadline, cancel);
        if (session) {
            link->session = std::move(session.value());
            m_link = std::move(link);
            return {};
        }
        lastError = session.error();
        qCInfo(lcChannel) << "SSH to workspace" << m_record.name
                          << "failed, retrying:" << lastError.message;
        QThread::msleep(200);
    }
    return lastError;
}

void Workspace::listenForEgress()
{
    if (m_link->egress || m_record.settings.network != WorkspaceNetwork::Allowlist ||
        !guest_egress::hasAcceptor())
        return;
    std::weak_ptr<GuestSession> session = std::shared_ptr<GuestSession>(m_link, m_link->session.get());
    auto forward = m_link->session->listenForward(
        guest_egress::kGuestPort, [name = m_record.name, session](int fd, quint16 sourcePort) {
            guest_egress::accept({name, fd, sourcePort,
                                  loopbackClientFinder(session, sourcePort, guest_egress::kGuestPort)});
        });
    if (!forward) {
        // Another session (of another Workspace object or workbench process) serves the port:
        // its proxy decides. Asked again before every command, since that session may end first.
        if (!std::exchange(m_link->egressTaken, true))
            qCInfo(lcChannel) << "workspace" << m_record.name << ": no egress proxy port:" << forward.error().message;
        return;
    }
    m_link->egress = std::move(forward.value());
    // Login shells (terminal tabs) find the proxy too; commands get the lines themselves.
    ExecRequest profile;
    profile.command = "cat >/etc/profile.d/sbw-egress-proxy.sh";
    profile.stdinData = guest_egress::exportLines();
    profile.timeout = std::chrono::seconds(30);
    if (auto written = m_link->session->exec(profile); !written || written->exitStatus != 0)
        qCWarning(lcChannel) << "workspace" << m_record.name << ": cannot write the proxy settings for login shells";
}

void Workspace::closeSession()
{
    std::lock_guard lock(m_mutex);
    dropSession();
}

void Workspace::dropSession()
{
    m_link.reset();
}

} // namespace sbw
