#include "workspace/ForkDefinition.h"

#include "hypervisor/DomainXmlEdit.h"

namespace sbw {

using namespace domain_xml;

namespace {

void setConsoleLogs(QDomElement devices, const QString& consoleLog)
{
    for (const QString& kind : {QStringLiteral("serial"), QStringLiteral("console")}) {
        for (const QDomElement& device : children(devices, kind)) {
            QDomElement log = device.firstChildElement(QStringLiteral("log"));
            if (!log.isNull())
                log.setAttribute(QStringLiteral("file"), consoleLog);
        }
    }
}

/// No network: every NIC's link down (QEMU drops what the guest sends and delivers nothing).
void cutNetwork(QDomDocument& document, QDomElement devices)
{
    for (QDomElement nic : children(devices, QStringLiteral("interface"))) {
        QDomElement link = nic.firstChildElement(QStringLiteral("link"));
        if (link.isNull())
            link = nic.appendChild(document.createElement(QStringLiteral("link"))).toElement();
        link.setAttribute(QStringLiteral("state"), QStringLiteral("down"));
    }
}

Expected<void> setMetadata(QDomDocument& document, QDomElement domain, const ForkIdentity& fork)
{
    QDomElement sandbox = sandboxMetadata(domain);
    if (sandbox.isNull())
        return makeError(QStringLiteral("the source workspace's definition has no workbench metadata"));
    setChildText(document, sandbox, QStringLiteral("name"), fork.workspace);
    setChildText(document, sandbox, QStringLiteral("overlay"), fork.overlay);
    setChildText(document, sandbox, QStringLiteral("created"),
                 fork.created.toUTC().toString(Qt::ISODateWithMs));
    for (const QDomElement& old : children(sandbox, QStringLiteral("origin")))
        sandbox.removeChild(old);
    const QString prefix = sandbox.tagName().contains(QLatin1Char(':'))
                               ? sandbox.tagName().section(QLatin1Char(':'), 0, 0) + QLatin1Char(':')
                               : QString();
    QDomElement origin = document.createElement(prefix + QLatin1String("origin"));
    origin.setAttribute(QStringLiteral("workspace"), fork.origin.workspace);
    if (!fork.origin.checkpoint.isEmpty())
        origin.setAttribute(QStringLiteral("checkpoint"), fork.origin.checkpoint);
    origin.setAttribute(QStringLiteral("forked"), fork.origin.forked.toUTC().toString(Qt::ISODateWithMs));
    sandbox.appendChild(origin);
    if (fork.offline)
        for (QDomElement settings : children(sandbox, QStringLiteral("settings")))
            settings.setAttribute(QStringLiteral("network"), workspaceNetworkName(WorkspaceNetwork::None));
    return {};
}

} // namespace

Expected<QString> forkDomainXml(const QString& sourceXml, const ForkIdentity& fork)
{
    auto document = parse(sourceXml, QStringLiteral("domain"), "the source workspace's definition");
    if (!document)
        return document.error();
    QDomElement domain = document->documentElement();
    setText(document.value(), domain.firstChildElement(QStringLiteral("name")), fork.domain);
    for (const QDomElement& uuid : children(domain, QStringLiteral("uuid")))
        domain.removeChild(uuid);
    QDomElement devices = domain.firstChildElement(QStringLiteral("devices"));
    if (auto set = setDiskSource(devices, fork.overlay); !set)
        return makeError(QStringLiteral("the source workspace's definition has no disk vda"));
    setConsoleLogs(devices, fork.consoleLog);
    if (fork.offline)
        cutNetwork(document.value(), devices);
    if (auto set = setMetadata(document.value(), domain, fork); !set)
        return set.error();
    return document->toString();
}

Expected<QString> redefinedSnapshotXml(const QString& snapshotXml, const QString& domainXml)
{
    auto snapshot = parse(snapshotXml, QStringLiteral("domainsnapshot"), "the checkpoint's description");
    if (!snapshot)
        return snapshot.error();
    auto domain = parse(domainXml, QStringLiteral("domain"), "the fork's definition");
    if (!domain)
        return domain.error();
    QDomElement root = snapshot->documentElement();
    for (const QString& name : {QStringLiteral("domain"), QStringLiteral("inactiveDomain")})
        for (const QDomElement& old : children(root, name))
            root.removeChild(old);
    root.appendChild(snapshot->importNode(domain->documentElement(), true));
    return snapshot->toString();
}

} // namespace sbw
