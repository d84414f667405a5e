#include "workspace/WorkspaceRecord.h"

#include "base/DataPaths.h"
#include "hypervisor/DomainSpec.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSaveFile>
#include <QXmlStreamReader>

namespace sbw {
namespace {

const QLatin1String kWorkspaceKind("workspace");

QString recordPath(const QString& name)
{
    return workspaceRecordsDir() + QLatin1Char('/') + name + QLatin1String(".json");
}

} // namespace

int defaultWorkspaceMemoryMiB(const QString& recipe)
{
    return recipe == QLatin1String("browser") ? 1024 : 512;
}

QString workspaceNetworkName(WorkspaceNetwork network)
{
    switch (network) {
    case WorkspaceNetwork::Nat:
        return QStringLiteral("nat");
    case WorkspaceNetwork::Allowlist:
        return QStringLiteral("allowlist");
    case WorkspaceNetwork::None:
        break;
    }
    return QStringLiteral("none");
}

bool parseWorkspaceNetwork(const QString& text, WorkspaceNetwork* network)
{
    if (text == QLatin1String("none"))
        *network = WorkspaceNetwork::None;
    else if (text == QLatin1String("nat"))
        *network = WorkspaceNetwork::Nat;
    else if (text == QLatin1String("allowlist"))
        *network = WorkspaceNetwork::Allowlist;
    else
        return false;
    return true;
}

QJsonObject WorkspaceRecord::toJson() const
{
    return QJsonObject{
        {QStringLiteral("name"), name},
        {QStringLiteral("domain"), domainName},
        {QStringLiteral("uuid"), uuid},
        {QStringLiteral("image_recipe"), settings.recipe},
        {QStringLiteral("image_hash"), imageHash},
        {QStringLiteral("image_build_id"), imageBuildId},
        {QStringLiteral("overlay"), overlay},
        {QStringLiteral("ssh_port"), sshPort},
        {QStringLiteral("host_key"), hostKey},
        {QStringLiteral("created"), created.toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("vcpus"), settings.vcpus},
        {QStringLiteral("memory_mib"), settings.memoryMiB},
        {QStringLiteral("disk_gib"), settings.diskGiB},
        {QStringLiteral("cpu_share_percent"), settings.cpuSharePercent},
        {QStringLiteral("network"), workspaceNetworkName(settings.network)},
        {QStringLiteral("environment"), environment.toJson()},
        {QStringLiteral("checkpoint_before_approved"), checkpointBeforeApproved},
        {QStringLiteral("forked_from"), origin.workspace},
        {QStringLiteral("forked_from_checkpoint"), origin.checkpoint},
        {QStringLiteral("forked"), origin.forked.isValid()
                                       ? origin.forked.toUTC().toString(Qt::ISODateWithMs)
                                       : QString()},
    };
}

WorkspaceRecord WorkspaceRecord::fromJson(const QJsonObject& json)
{
    WorkspaceRecord r;
    r.name = json.value(QStringLiteral("name")).toString();
    r.domainName = json.value(QStringLiteral("domain")).toString();
    r.uuid = json.value(QStringLiteral("uuid")).toString();
    r.settings.recipe = json.value(QStringLiteral("image_recipe")).toString();
    r.imageHash = json.value(QStringLiteral("image_hash")).toString();
    r.imageBuildId = json.value(QStringLiteral("image_build_id")).toString();
    r.overlay = json.value(QStringLiteral("overlay")).toString();
    r.sshPort = json.value(QStringLiteral("ssh_port")).toString();
    r.hostKey = json.value(QStringLiteral("host_key")).toString();
    r.created =
        QDateTime::fromString(json.value(QStringLiteral("created")).toString(), Qt::ISODateWithMs);
    r.settings.vcpus = json.value(QStringLiteral("vcpus")).toInt();
    r.settings.memoryMiB = json.value(QStringLiteral("memory_mib")).toInt();
    r.settings.diskGiB = json.value(QStringLiteral("disk_gib")).toInt();
    r.settings.cpuSharePercent = json.value(QStringLiteral("cpu_share_percent")).toInt();
    parseWorkspaceNetwork(json.value(QStringLiteral("network")).toString(), &r.settings.network);
    r.environment = WorkspaceEnvironment::fromJson(json.value(QStringLiteral("environment")).toArray());
    r.checkpointBeforeApproved = json.value(QStringLiteral("checkpoint_before_approved")).toBool();
    r.origin.workspace = json.value(QStringLiteral("forked_from")).toString();
    r.origin.checkpoint = json.value(QStringLiteral("forked_from_checkpoint")).toString();
    r.origin.forked =
        QDateTime::fromString(json.value(QStringLiteral("forked")).toString(), Qt::ISODateWithMs);
    return r;
}

QString WorkspaceOrigin::describe() const
{
    if (workspace.isEmpty())
        return {};
    if (checkpoint.isEmpty())
        return QStringLiteral("fork of %1").arg(workspace);
    return QStringLiteral("fork of %1 at checkpoint %2").arg(workspace, checkpoint);
}

QString workspaceDomainName(const QString& name)
{
    return QLatin1String(kWorkspaceDomainPrefix) + name;
}

Expected<void> validateWorkspaceName(const QString& name)
{
    static const QRegularExpression valid(QStringLiteral("^[a-z0-9][a-z0-9-]{0,39}$"));
    if (!valid.match(name).hasMatch())
        return makeError(QStringLiteral("'%1' is not a workspace name: use 1 to 40 of a-z, 0-9 and "
                                        "'-', starting with a letter or digit")
                             .arg(name));
    return {};
}

Expected<WorkspaceRecord> workspaceRecordFromMetadata(const QString& xml, const QString& domainName,
                                                      const QString& uuid)
{
    const QLatin1String ns(kMetadataNamespace);
    QXmlStreamReader reader(xml);
    WorkspaceRecord record;
    record.domainName = domainName;
    record.uuid = uuid;
    bool inSandbox = false;
    QString kind;
    // virDomainGetMetadata returns the element without its namespace; in a whole domain XML
    // it carries ours.
    const auto ours = [&] {
        return reader.namespaceUri() == ns || reader.namespaceUri().isEmpty();
    };
    while (!reader.atEnd()) {
        reader.readNext();
        if (reader.isStartElement() && ours()) {
            const auto name = reader.name();
            const auto attributes = reader.attributes();
            if (name == QLatin1String("sandbox")) {
                inSandbox = true;
            } else if (!inSandbox) {
                continue;
            } else if (name == QLatin1String("kind")) {
                kind = reader.readElementText();
            } else if (name == QLatin1String("name")) {
                record.name = reader.readElementText();
            } else if (name == QLatin1String("image")) {
                record.settings.recipe = attributes.value(QLatin1String("recipe")).toString();
                record.imageHash = attributes.value(QLatin1String("hash")).toString();
                record.imageBuildId = attributes.value(QLatin1String("build-id")).toString();
            } else if (name == QLatin1String("created")) {
                record.created = QDateTime::fromString(reader.readElementText(), Qt::ISODateWithMs);
            } else if (name == QLatin1String("overlay")) {
                record.overlay = reader.readElementText();
            } else if (name == QLatin1String("ssh")) {
                record.sshPort = attributes.value(QLatin1String("port")).toString();
                record.hostKey = attributes.value(QLatin1String("host-key")).toString();
            } else if (name == QLatin1String("origin")) {
                record.origin.workspace = attributes.value(QLatin1String("workspace")).toString();
                record.origin.checkpoint = attributes.value(QLatin1String("checkpoint")).toString();
                record.origin.forked = QDateTime::fromString(
                    attributes.value(QLatin1String("forked")).toString(), Qt::ISODateWithMs);
            } else if (name == QLatin1String("settings")) {
                record.settings.vcpus = attributes.value(QLatin1String("vcpus")).toInt();
                record.settings.memoryMiB = attributes.value(QLatin1String("memory-mib")).toInt();
                record.settings.diskGiB = attributes.value(QLatin1String("disk-gib")).toInt();
                record.settings.cpuSharePercent =
                    attributes.value(QLatin1String("cpu-share")).toInt(); // absent: 0, unlimited
                parseWorkspaceNetwork(attributes.value(QLatin1String("network")).toString(),
                                      &record.settings.network);
            }
        } else if (inSandbox && reader.isEndElement() && ours() &&
                   reader.name() == QLatin1String("sandbox")) {
            break;
        }
    }
    if (reader.hasError())
        return makeError(QStringLiteral("metadata of domain %1 is not valid XML: %2")
                             .arg(domainName, reader.errorString()));
    if (!inSandbox)
        return makeError(
            QStringLiteral("domain %1 has no Sandbox Workbench metadata").arg(domainName));
    if (kind != kWorkspaceKind)
        return makeError(
            QStringLiteral("domain %1 is not a workspace (kind '%2')").arg(domainName, kind));
    if (record.name.isEmpty())
        return makeError(
            QStringLiteral("workspace domain %1 has no name in its metadata").arg(domainName));
    return record;
}

QString workspaceRecordsDir()
{
    return paths::dataDir() + QLatin1String("/workspaces");
}

Expected<void> saveWorkspaceRecord(const WorkspaceRecord& record)
{
    if (!paths::ensureDir(workspaceRecordsDir()))
        return makeError(QStringLiteral("cannot create %1").arg(workspaceRecordsDir()));
    QSaveFile file(recordPath(record.name));
    if (!file.open(QIODevice::WriteOnly) ||
        !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner))
        return makeError(
            QStringLiteral("cannot write %1: %2").arg(file.fileName(), file.errorString()));
    file.write(QJsonDocument(record.toJson()).toJson());
    if (!file.commit())
        return makeError(
            QStringLiteral("cannot write %1: %2").arg(file.fileName(), file.errorString()));
    return {};
}

Expected<QJsonObject> readWorkspaceRecordJson(const QString& name)
{
    QFile file(recordPath(name));
    if (!file.exists())
        return QJsonObject{};
    if (!file.open(QIODevice::ReadOnly))
        return makeError(QStringLiteral("cannot read the settings of workspace '%1' (%2): %3")
                             .arg(name, file.fileName(), file.errorString()));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (!document.isObject())
        return makeError(QStringLiteral("the settings of workspace '%1' (%2) are not JSON: %3")
                             .arg(name, file.fileName(), parseError.errorString()));
    return document.object();
}

Expected<bool> loadCheckpointBeforeApproved(const QString& name)
{
    auto json = readWorkspaceRecordJson(name);
    if (!json)
        return json.error();
    return WorkspaceRecord::fromJson(json.value()).checkpointBeforeApproved;
}

Expected<void> removeWorkspaceRecord(const QString& name)
{
    QFile file(recordPath(name));
    if (file.exists() && !file.remove())
        return makeError(
            QStringLiteral("cannot delete %1: %2").arg(file.fileName(), file.errorString()));
    return {};
}

} // namespace sbw
