#pragma once

#include "base/Expected.h"
#include "workspace/WorkspaceEnvironment.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>

namespace sbw {

/// The network a workspace gets: none (the default; SSH and the agent use virtio-serial), NAT:
/// a virtio NIC on QEMU's user-mode network (outgoing IPv4 and DNS; nothing listens), or
/// allowlist: no interface either, only HTTP(S) through the workbench's egress proxy, reached
/// over the SSH session (GuestEgress), which decides per destination.
enum class WorkspaceNetwork
{
    None,
    Nat,
    Allowlist,
};

/// "none" / "nat" / "allowlist"; parseWorkspaceNetwork() reads them back (false on anything else).
QString workspaceNetworkName(WorkspaceNetwork network);
bool parseWorkspaceNetwork(const QString& text, WorkspaceNetwork* network);

/// What a workspace is made of, chosen at creation and fixed afterwards.
struct WorkspaceSettings
{
    QString recipe = QStringLiteral("minimal"); ///< guest image recipe name
    int vcpus = 1;
    int memoryMiB = 512; ///< guest RAM, MiB
    int diskGiB = 4;     ///< virtual size of the overlay, GiB (at least the image's 4 GiB)
    /// CPU time of all vCPUs together, percent of one host core (cputune in the domain's
    /// definition, so it holds at every start); 0 = unlimited.
    int cpuSharePercent = 0;
    WorkspaceNetwork network = WorkspaceNetwork::None;

    bool operator==(const WorkspaceSettings&) const = default;
};

/// The memory a workspace made from image `recipe` gets when none is asked for: 512 MiB, and
/// 1024 for `browser`. In 512 MiB Chromium's renderer cannot start: the guest kernel's
/// overcommit check refuses the address space it reserves, so every page crashes at once.
int defaultWorkspaceMemoryMiB(const QString& recipe);

/// Where a forked workspace came from (Workspace::fork); empty for a workspace created anew.
struct WorkspaceOrigin
{
    QString workspace;  ///< the source workspace's name
    QString checkpoint; ///< the source's checkpoint it was forked from; empty: its state then
    QDateTime forked;   ///< UTC

    bool isEmpty() const { return workspace.isEmpty(); }
    /// "fork of web", "fork of web at checkpoint before-3"; empty when not a fork.
    QString describe() const;
    bool operator==(const WorkspaceOrigin&) const = default;
};

/// One workspace as the workbench knows it. The libvirt domain's <metadata> is the source of
/// truth (written by domainXml(), read back by workspaceRecordFromMetadata()); the same fields
/// are kept as JSON in `<dataDir>/workspaces/<name>.json` for people and scripts.
struct WorkspaceRecord
{
    QString name;         ///< the user's name, e.g. "agent-1"
    QString domainName;   ///< "sbw-ws-<name>"
    QString uuid;         ///< libvirt domain UUID, text form
    QString imageHash;    ///< recipe hash of the image it was created from
    QString imageBuildId; ///< GuestImage::buildId: names the staged base volumes
    QString overlay;      ///< path of its qcow2 overlay volume, as QEMU sees it
    QString sshPort;      ///< virtio-serial port name of the guest's sshd
    QString hostKey;      ///< "ssh-ed25519 AAAA…": the guest sshd's host key, pinned at creation
    QDateTime created;    ///< UTC
    WorkspaceSettings settings;
    WorkspaceOrigin origin; ///< set for forks
    /// Variables injected into every command; kept in the JSON record only (not in the domain's
    /// metadata, which read-only libvirt clients can see). Empty in records read from metadata.
    WorkspaceEnvironment environment;
    /// A checkpoint before each agent action a person approved (exec, file write), so the log is
    /// a timeline to revert to and fork from; off by default. JSON record only, like environment.
    bool checkpointBeforeApproved = false;

    QJsonObject toJson() const;
    static WorkspaceRecord fromJson(const QJsonObject& json);
    bool operator==(const WorkspaceRecord&) const = default;
};

inline constexpr char kWorkspaceDomainPrefix[] = "sbw-ws-";

/// "sbw-ws-<name>".
QString workspaceDomainName(const QString& name);

/// Workspace names: 1–40 characters of a–z, 0–9 and '-', starting with a letter or digit (they
/// become part of libvirt domain and volume names). Errors say what is wrong.
Expected<void> validateWorkspaceName(const QString& name);

/// Parses the workbench's metadata element as virDomainGetMetadata(VIR_DOMAIN_METADATA_ELEMENT,
/// kMetadataNamespace) returns it (`<sandbox><kind>workspace</kind>…</sandbox>`, without the
/// namespace), or a whole domain XML that contains it (in the namespace). `domainName` and `uuid`
/// are taken from the arguments. Errors: not XML, no sandbox element, kind is not "workspace", no
/// workspace name.
Expected<WorkspaceRecord> workspaceRecordFromMetadata(const QString& xml, const QString& domainName,
                                                      const QString& uuid);

/// `<dataDir>/workspaces`.
QString workspaceRecordsDir();

/// Writes `<workspaceRecordsDir()>/<name>.json` (atomically, readable by its owner only: it may
/// hold secrets). Errors: folder or file not writable.
Expected<void> saveWorkspaceRecord(const WorkspaceRecord& record);

/// The JSON record of `name` as it is on disk now; an empty object when there is none. Errors:
/// it cannot be read, or is not JSON.
Expected<QJsonObject> readWorkspaceRecordJson(const QString& name);

/// Whether workspace `name` takes a checkpoint before each approved agent action, from its JSON
/// record now (false when it has none). Errors: the record cannot be read.
Expected<bool> loadCheckpointBeforeApproved(const QString& name);

/// Deletes the JSON record of `name`; succeeds when it does not exist.
Expected<void> removeWorkspaceRecord(const QString& name);

} // namespace sbw
